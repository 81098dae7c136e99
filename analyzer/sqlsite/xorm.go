package sqlsite

import (
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgXorm is xorm. Its *Engine is a pool; a *Session is a connection (or,
// as a parameter, maybe the caller's transaction) on which Begin, Commit
// and Rollback open and end a transaction in place
// (they return only an error), so they are modelled as the BEGIN, COMMIT
// and ROLLBACK statements they send. Chains of Session methods (Table,
// Where, In, ForUpdate, ...) end in a finisher (Get, Find, Update, ...).
const pkgXorm = "xorm.io/xorm"

// xormFinish maps xorm's finishers to the statement they run.
var xormFinish = map[string]string{
	"Get":     "SELECT",
	"Find":    "SELECT",
	"Count":   "SELECT",
	"Exist":   "SELECT",
	"Iterate": "SELECT",
	"Update":  "UPDATE",
	"Delete":  "DELETE",
	"Insert":  "INSERT",
	"Exec":    "RAW",
	"Query":   "RAW",
}

// xormKind is the handle kind of an xorm type.
func xormKind(name string) HandleKind {
	switch name {
	case "Engine":
		return Pool
	case "Session":
		// A session parameter may be the caller's transaction.
		return Maybe
	}
	return NotHandle
}

// isXormLink accepts the Engine and Session methods that return a session
// to chain on (engine.Table("jobs"), sess.ForUpdate()).
func isXormLink(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != pkgXorm || xormFinish[fn.Name()] != "" || fn.Name() == "NewSession" {
		return false
	}
	res := fn.Signature().Results()
	if res.Len() != 1 {
		return false
	}
	_, name, ok := namedPath(res.At(0).Type())
	return ok && name == "Session"
}

// classifyXorm models a method of an xorm Engine or Session.
func (rs *Rules) classifyXorm(op Op, fn *types.Func, recv ssa.Value, call *ssa.CallCommon) (Op, bool) {
	if recv == nil {
		return op, false
	}
	name := fn.Name()
	root, links := chainOf(recv, isXormLink)
	op.Recv, op.RecvKind = root, rs.KindOf(root.Type())
	if op.RecvKind == NotHandle {
		return op, false
	}
	switch name {
	case "Begin", "Commit", "Rollback":
		if op.RecvKind == Pool {
			return op, false
		}
		text := map[string]string{"Begin": "BEGIN", "Commit": "COMMIT", "Rollback": "ROLLBACK"}[name]
		op.Kind, op.Query, op.Params = Query, len(op.Args), -1
		op.Args = append(append([]ssa.Value(nil), op.Args...), ssa.NewConst(constant.MakeString(text), types.Typ[types.String]))
		return op, true
	case "Close":
		op.Kind, op.Pooled = Release, true
		return op, true
	case "NewSession":
		// A session its function begins is that function's
		// transaction: the helpers it is passed to hold their locks
		// in it. Other sessions run their statements in autocommit.
		if op.RecvKind == Pool && sessionBegun(recv, call) {
			op.Kind = Begin
			return op, true
		}
		return op, false
	case "Transaction":
		op.Kind, op.Func = BeginFunc, 0
		return op, true
	}
	if isXormLink(fn) {
		op.Kind, op.Recv = Chain, recv
		return op, true
	}
	verb := xormFinish[name]
	if verb == "" {
		return op, false
	}
	st := statement{verb: verb}
	if verb == "RAW" {
		if elems := variadicOrNil(op.Args[0]); len(elems) > 0 {
			st.raw, _ = constString(elems[0])
		}
	}
	for _, l := range links {
		switch l.name {
		case "Table":
			if s, ok := constString(l.args[0]); ok {
				st.table = firstWord(s)
			} else {
				st.table = xormTable(l.args[0])
			}
		case "Where", "And":
			if s, ok := constString(l.args[0]); ok {
				st.where = append(st.where, s)
			} else {
				st.unknown = true
			}
		case "Or", "NotIn", "Cond":
			st.unknown = true
		case "OrderBy":
			if s, ok := constString(l.args[0]); ok {
				st.order = append(st.order, s)
			}
		case "Asc":
			st.order = append(st.order, constStrings(l.args[0])...)
		case "Desc":
			for _, c := range constStrings(l.args[0]) {
				st.order = append(st.order, c+" DESC")
			}
		case "Limit":
			st.limit1 = isConstOne(l.args[0])
		case "ID":
			st.where = append(st.where, "id = ?")
		case "In":
			if s, ok := constString(l.args[0]); ok {
				st.where = append(st.where, s+" = ANY(?)")
			}
		case "SQL":
			st.raw, _ = constString(l.args[0])
		case "ForUpdate":
			st.suffix = append(st.suffix, "FOR UPDATE")
		}
	}
	if name == "Get" {
		st.limit1 = true // xorm's Get reads one row
	}
	if st.table == "" && len(op.Args) > 0 {
		bean := op.Args[0]
		if elems, ok := variadicElems(bean); ok && len(elems) > 0 {
			bean = elems[0]
		}
		st.table = xormTable(bean)
	}
	return rs.builtQuery(op, root, &st, "xorm Session."+name)
}

// xormTable names the table of an xorm bean: its TableName method, or its
// type name as xorm's default SnakeMapper writes it (not pluralised).
func xormTable(bean ssa.Value) string {
	t := modelType(bean)
	if t == nil {
		return ""
	}
	if s, ok := tableNameMethod(progOf(bean), t); ok {
		return s
	}
	return xormSnake(t.Obj().Name())
}

// xormSnake is xorm's default SnakeMapper: every upper-case letter but the
// first starts a word (HTTPRequest gives h_t_t_p_request).
func xormSnake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sessionBegun reports whether the session that call (engine.NewSession())
// returns has Begin called on it in the same function.
func sessionBegun(engine ssa.Value, call *ssa.CallCommon) bool {
	refs := engine.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		c, ok := r.(*ssa.Call)
		if !ok || &c.Call != call || c.Referrers() == nil {
			continue
		}
		for _, u := range *c.Referrers() {
			b, ok := u.(*ssa.Call)
			if !ok || len(b.Call.Args) == 0 || b.Call.Args[0] != c {
				continue
			}
			if f := staticFunc(&b.Call); f != nil && f.Name() == "Begin" && f.Pkg() != nil && f.Pkg().Path() == pkgXorm {
				return true
			}
		}
	}
	return false
}
