package sqlsite

import (
	"go/constant"
	"go/types"
	"reflect"
	"slices"
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
				st.table = rs.xormTable(l.args[0])
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
	if bean := xormCondBean(name, op.Args); bean != nil {
		st.where = append(st.where, xormBeanConds(bean)...)
	}
	if name == "Get" {
		st.limit1 = true // xorm's Get reads one row
	}
	if st.table == "" && len(op.Args) > 0 {
		bean := op.Args[0]
		if elems, ok := variadicElems(bean); ok && len(elems) > 0 {
			bean = elems[0]
		}
		st.table = rs.xormTable(bean)
	}
	return rs.builtQuery(op, root, &st, "xorm Session."+name)
}

// xormCondBean returns the condition bean of a finisher's arguments, if
// any: Find(&rows, &Cond{...}) and Update(&row, &Cond{...}) take it after
// the first argument; Get, Delete, Count and Exist filter by the bean they
// are given.
func xormCondBean(name string, args []ssa.Value) ssa.Value {
	at := 0
	switch name {
	case "Find", "Update":
		at = 1
	case "Get", "Delete", "Count", "Exist":
	default:
		return nil
	}
	if at >= len(args) {
		return nil
	}
	elems, ok := variadicElems(args[at])
	if !ok || len(elems) == 0 {
		return nil
	}
	return elems[0]
}

// xormBeanConds renders the conditions xorm builds from a bean it filters
// by: one equality per field the function sets to a value that is not the
// zero value (xorm skips zero fields), on the field's column. Only a bean
// built in the function (&Flock{Inode: ino}, or a variable whose fields it
// sets) is read; nothing is claimed about one it was handed.
func xormBeanConds(bean ssa.Value) []string {
	if mi, ok := bean.(*ssa.MakeInterface); ok {
		bean = mi.X
	}
	alloc, ok := bean.(*ssa.Alloc)
	if !ok || alloc.Referrers() == nil {
		return nil
	}
	st, ok := types.Unalias(alloc.Type().(*types.Pointer).Elem()).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var conds []string
	for _, r := range *alloc.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.Referrers() == nil {
			continue
		}
		col := xormColumn(st.Field(fa.Field), st.Tag(fa.Field))
		if col == "" {
			continue
		}
		for _, u := range *fa.Referrers() {
			if store, ok := u.(*ssa.Store); ok && store.Addr == fa && !zeroConst(store.Val) {
				conds = append(conds, col+" = ?")
				break
			}
		}
	}
	slices.Sort(conds)
	return slices.Compact(conds)
}

// xormColumn is the column of a struct field under xorm's default mapper:
// the name quoted in its xorm tag ('inode'), or its snake-cased name; ""
// for a field xorm ignores (xorm:"-") or one that embeds another bean.
func xormColumn(f *types.Var, tag string) string {
	spec := reflect.StructTag(tag).Get("xorm")
	for _, tok := range strings.Fields(spec) {
		switch {
		case tok == "-", strings.EqualFold(tok, "extends"):
			return ""
		case len(tok) > 2 && tok[0] == '\'' && tok[len(tok)-1] == '\'':
			return tok[1 : len(tok)-1]
		}
	}
	if f.Anonymous() {
		return ""
	}
	return xormSnake(f.Name())
}

// zeroConst reports whether v is a constant zero value (0, "", false, nil).
func zeroConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	if !ok {
		return false
	}
	if c.Value == nil {
		return true
	}
	switch c.Value.Kind() {
	case constant.Bool:
		return !constant.BoolVal(c.Value)
	case constant.String:
		return constant.StringVal(c.Value) == ""
	case constant.Int, constant.Float, constant.Complex:
		return constant.Sign(c.Value) == 0
	}
	return false
}

// xormTable names the table of an xorm bean: its TableName method, or its
// type name as xorm's default SnakeMapper writes it (not pluralised).
func (rs *Rules) xormTable(bean ssa.Value) string {
	t := modelType(bean)
	if t == nil {
		return ""
	}
	if s, ok := tableNameMethod(progOf(bean), t, rs.externals()); ok {
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
