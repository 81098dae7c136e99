package sqlsite

import (
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgGoqu is doug-martin/goqu, a query builder. A dataset (SelectDataset,
// UpdateDataset, DeleteDataset, InsertDataset) is started by a package
// function (goqu.From), a dialect (goqu.Dialect("postgres").Update(t)) or
// a database handle (goqu.New(...).From(t), a TxDatabase's), extended by
// methods that return a dataset (Where, ForUpdate, Order, ...), and either
// rendered by ToSQL for a database/sql, sqlx or pgx call or run on its
// database by ScanStructs, Count, ... or Executor().Exec.
const (
	pkgGoqu     = "github.com/doug-martin/goqu/v9"
	pkgGoquExp  = pkgGoqu + "/exp"
	pkgGoquExec = pkgGoqu + "/exec"
)

// goquStart maps the methods and functions that start a dataset to the
// statement it builds.
var goquStart = map[string]string{
	"From": "SELECT", "Select": "SELECT", "Update": "UPDATE", "Insert": "INSERT", "Delete": "DELETE",
}

// goquRun lists the dataset and executor methods that run the statement;
// true for those that ask for one row.
var goquRun = map[string]bool{
	"ScanStructs": false, "ScanStructsContext": false, "ScanStruct": true, "ScanStructContext": true,
	"ScanVals": false, "ScanValsContext": false, "ScanVal": true, "ScanValContext": true,
	"Count": false, "CountContext": false, "Pluck": false, "PluckContext": false,
	"Exec": false, "ExecContext": false, "Query": false, "QueryContext": false,
}

// goquDataset reports whether t is one of goqu's datasets.
func goquDataset(t types.Type) bool {
	pkg, name, ok := namedPath(t)
	if !ok || pkg != pkgGoqu {
		return false
	}
	switch name {
	case "SelectDataset", "UpdateDataset", "DeleteDataset", "InsertDataset":
		return true
	}
	return false
}

// goquKind is the handle kind of goqu's database types: a Database wraps a
// pool (*sql.DB), a TxDatabase a transaction.
func goquKind(name string) HandleKind {
	switch name {
	case "Database":
		return Pool
	case "TxDatabase":
		return Tx
	}
	return NotHandle
}

// isGoquLink accepts the dataset methods that return a dataset.
func isGoquLink(fn *types.Func) bool {
	sig := fn.Signature()
	if fn.Pkg() == nil || fn.Pkg().Path() != pkgGoqu || sig.Recv() == nil || sig.Results().Len() != 1 {
		return false
	}
	return goquDataset(sig.Recv().Type()) && goquDataset(sig.Results().At(0).Type())
}

// classifyGoqu models the calls of goqu's handles, datasets and executors.
func (rs *Rules) classifyGoqu(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	if recv == nil {
		return op, false
	}
	name := fn.Name()
	_, tname, _ := namedPath(recv.Type())
	if k := goquKind(tname); k != NotHandle && fn.Pkg().Path() == pkgGoqu {
		op.Recv, op.RecvKind = recv, k
		switch {
		case goquStart[name] != "":
			op.Kind = Chain
			return op, true
		case name == "WithTx" && len(op.Args) == 1:
			// WithTx(func(tx *goqu.TxDatabase) error)
			op.Kind, op.Func, op.FuncTx = BeginFunc, 0, 0
			return op, true
		case strings.HasPrefix(name, "Scan"):
			// ScanStructs(dest, query, args...) and their Context forms.
			if i := goquScanQuery(fn.Signature()); i >= 0 {
				op.Kind, op.Query, op.Params = Query, i, i+1
				return op, true
			}
		}
		return op, false // Exec, Query, Begin, Commit, ...: database/sql's names
	}
	ds := recv
	if fn.Pkg().Path() == pkgGoquExec {
		// ds.Executor().Exec(): the dataset is the Executor call's receiver.
		c, ok := recv.(*ssa.Call)
		if !ok {
			return op, false
		}
		f := staticFunc(&c.Call)
		if f == nil || f.Name() != "Executor" || len(c.Call.Args) == 0 || !goquDataset(c.Call.Args[0].Type()) {
			return op, false
		}
		ds = c.Call.Args[0]
	} else if !goquDataset(recv.Type()) {
		return op, false
	}
	one, runs := goquRun[name]
	if !runs {
		if isGoquLink(fn) {
			op.Kind, op.Recv = Chain, recv
			return op, true
		}
		return op, false
	}
	st, handle, ok := goquStatement(ds)
	if handle == nil {
		return op, false
	}
	if ok {
		if one && st.verb == "SELECT" {
			st.limit1 = true // ScanStruct and ScanVal add LIMIT 1
		}
		if op, ok := rs.builtQuery(op, handle, st, "goqu "+strings.ToLower(st.verb)+" dataset's "+name); ok {
			return op, true
		}
	}
	return rs.unbuiltQuery(op, handle, "a goqu dataset the model cannot rebuild", "goqu dataset's "+name)
}

// goquScanQuery returns the index of the query of a Database's Scan
// method (ScanStructs(dest, query, args...)), or -1.
func goquScanQuery(sig *types.Signature) int {
	params := sig.Params()
	for i := range params.Len() {
		if isString(params.At(i).Type()) {
			return i
		}
	}
	return -1
}

// goquToSQL renders the statement of a dataset whose ToSQL is called.
func goquToSQL(call *ssa.Call) (ssa.Value, bool) {
	fn := staticFunc(&call.Call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgGoqu || fn.Name() != "ToSQL" || len(call.Call.Args) == 0 || !goquDataset(call.Call.Args[0].Type()) {
		return nil, false
	}
	st, _, ok := goquStatement(call.Call.Args[0])
	if !ok {
		return nil, false
	}
	text, ok := st.sql()
	if !ok {
		return nil, false
	}
	return st.textValue(text, call.Parent()), true
}

// goquStatement reconstructs the statement a dataset describes, and the
// database handle it was started from, if any.
func goquStatement(v ssa.Value) (*statement, ssa.Value, bool) {
	root, links := chainOf(v, isGoquLink)
	c, ok := root.(*ssa.Call)
	if !ok {
		return nil, nil, false
	}
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgGoqu || goquStart[fn.Name()] == "" {
		return nil, nil, false
	}
	args := c.Call.Args
	var handle ssa.Value
	if recv := fn.Signature().Recv(); recv != nil {
		_, tname, _ := namedPath(recv.Type())
		switch {
		case goquKind(tname) != NotHandle:
			handle = args[0]
		case tname != "DialectWrapper":
			return nil, nil, false
		}
		args = args[1:]
	}
	st := &statement{verb: goquStart[fn.Name()]}
	if fn.Name() != "Select" && len(args) > 0 {
		st.table = goquTableOf(st, args[0])
	}
	for _, l := range links {
		switch l.name {
		case "From", "Table", "Into":
			if st.table == "" && len(l.args) > 0 {
				st.table = goquTableOf(st, l.args[0])
			}
		case "Where":
			goquWhere(st, l.args[0])
		case "ClearWhere":
			st.where, st.args, st.unknown = nil, nil, false
		case "Order", "OrderAppend", "OrderPrepend":
			for _, o := range elemsOf(l.args[0]) {
				st.order = append(st.order, goquOrder(o))
			}
		case "ClearOrder":
			st.order = nil
		case "Limit":
			st.limit1 = isConstOne(l.args[0])
		case "LimitAll", "ClearLimit":
			st.limit1 = false
		case "Set":
			if keys := mapKeys(l.args[0]); len(keys) > 0 && st.set == "" {
				st.set = keys[0]
			}
		case "ForUpdate", "ForNoKeyUpdate", "ForShare", "ForKeyShare":
			st.suffix = append(st.suffix, goquLock(l.name, l.args[0]))
		}
	}
	if st.table == "" {
		return nil, handle, false
	}
	return st, handle, true
}

// elemsOf returns the elements of a variadic argument, or the argument
// itself when it is not a slice literal.
func elemsOf(v ssa.Value) []ssa.Value {
	if elems, ok := variadicElems(v); ok {
		return elems
	}
	return []ssa.Value{v}
}

// goquTableOf names the table of a dataset's table argument, or makes a
// string that is not constant (a helper's parameter) a hole of the
// statement.
func goquTableOf(st *statement, v ssa.Value) string {
	if t := goquTable(v); t != "" {
		return t
	}
	if elems, ok := variadicElems(v); ok {
		if len(elems) == 0 {
			return ""
		}
		v = elems[0]
	}
	return st.name(stripConversions(v))
}

// goquTable names the table of a dataset's table argument: a string, or
// goqu.T("jobs") (also with .As("j")), or the first of a From's list.
func goquTable(v ssa.Value) string {
	if elems, ok := variadicElems(v); ok {
		if len(elems) == 0 {
			return ""
		}
		v = elems[0]
	}
	v = stripConversions(v)
	if s, ok := constString(v); ok {
		return firstWord(s)
	}
	if name, ok := goquIdent(v); ok {
		return name
	}
	return ""
}

// goquIdent returns the identifier of goqu.T("t"), goqu.C("c") or
// goqu.I("t.c"), also of one renamed by As.
func goquIdent(v ssa.Value) (string, bool) {
	v = stripConversions(v)
	c, ok := v.(*ssa.Call)
	if !ok {
		return "", false
	}
	if c.Call.IsInvoke() {
		if c.Call.Method.Name() == "As" {
			return goquIdent(c.Call.Value)
		}
		return "", false
	}
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgGoqu || len(c.Call.Args) != 1 {
		return "", false
	}
	switch fn.Name() {
	case "T", "C", "I":
		return constString(c.Call.Args[0])
	}
	return "", false
}

// goquOps maps the comparison methods of an identifier to their operator.
var goquOps = map[string]string{
	"Eq": "=", "Neq": "<>", "Gt": ">", "Gte": ">=", "Lt": "<", "Lte": "<=",
}

// goquWhere adds the conditions of a Where's expressions; what cannot be
// rendered marks the statement's filter unknown.
func goquWhere(st *statement, v ssa.Value) {
	for _, e := range elemsOf(v) {
		if !goquPred(st, e) {
			st.unknown = true
		}
	}
}

// goquPred adds one condition: goqu.Ex{"col": v} (a slice value is a set,
// IN, as goqu renders it), goqu.C("col").Eq(v) and the other comparisons,
// In, IsNull, goqu.L("raw ?", v) and goqu.And of those. It reports false
// for what it cannot render (goqu.Or, goqu.ExOr, goqu.Op values).
func goquPred(st *statement, v ssa.Value) bool {
	v = stripConversions(v)
	if mm, ok := v.(*ssa.MakeMap); ok {
		if pkg, name, ok := namedPath(mm.Type()); ok && pkg == pkgGoquExp && name == "Ex" {
			entries := mapEntries(v)
			if len(entries) == 0 {
				return false
			}
			all := true
			for _, e := range entries {
				val := e.value
				if m, ok := val.(*ssa.MakeInterface); ok {
					val = m.X
				}
				switch {
				case isNilConst(val):
					st.addWhere(e.key + " IS NULL")
				case isListValue(val):
					st.addWhere(e.key+" IN ?", val)
				default:
					if pkg, name, ok := namedPath(val.Type()); ok && pkg == pkgGoquExp && name == "Op" {
						all = false
						continue
					}
					st.addWhere(e.key+" = ?", val)
				}
			}
			return all
		}
		return false
	}
	c, ok := v.(*ssa.Call)
	if !ok {
		return false
	}
	if c.Call.IsInvoke() {
		col, ok := goquIdent(c.Call.Value)
		if !ok {
			return false
		}
		m := c.Call.Method.Name()
		switch {
		case goquOps[m] != "" && len(c.Call.Args) == 1:
			arg := stripInterface(c.Call.Args[0])
			st.addWhere(col+" "+goquOps[m]+" ?", arg)
			return true
		case m == "In" && len(c.Call.Args) == 1:
			st.addWhere(col + " IN ?")
			return true
		case m == "IsNull":
			st.addWhere(col + " IS NULL")
			return true
		case m == "IsNotNull":
			st.addWhere(col + " IS NOT NULL")
			return true
		case m == "IsTrue" || m == "IsFalse":
			st.addWhere(col + " IS " + strings.ToUpper(strings.TrimPrefix(m, "Is")))
			return true
		}
		return false
	}
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgGoqu {
		return false
	}
	switch fn.Name() {
	case "L", "Literal":
		s, ok := constString(c.Call.Args[0])
		if !ok {
			return false
		}
		vals, _ := variadicElems(c.Call.Args[1])
		args := make([]ssa.Value, len(vals))
		for i, a := range vals {
			args[i] = stripInterface(a)
		}
		st.addWhere(s, args...)
		return true
	case "And":
		all := true
		for _, e := range elemsOf(c.Call.Args[0]) {
			if !goquPred(st, e) {
				all = false
			}
		}
		return all
	}
	return false
}

// goquOrder renders one ordered expression (goqu.C("id").Asc()); one that
// cannot be rendered still orders the rows, by something: "1".
func goquOrder(v ssa.Value) string {
	v = stripConversions(v)
	if c, ok := v.(*ssa.Call); ok && c.Call.IsInvoke() {
		if col, ok := goquIdent(c.Call.Value); ok {
			switch c.Call.Method.Name() {
			case "Asc":
				return col
			case "Desc":
				return col + " DESC"
			}
		}
	}
	return "1"
}

// goquLock renders a locking clause and its wait option (exp.Wait,
// exp.NoWait, exp.SkipLocked: 0, 1, 2).
func goquLock(method string, wait ssa.Value) string {
	clause := map[string]string{
		"ForUpdate": "FOR UPDATE", "ForNoKeyUpdate": "FOR NO KEY UPDATE",
		"ForShare": "FOR SHARE", "ForKeyShare": "FOR KEY SHARE",
	}[method]
	if c, ok := wait.(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Int {
		switch n, _ := constant.Int64Val(c.Value); n {
		case 1:
			clause += " NOWAIT"
		case 2:
			clause += " SKIP LOCKED"
		}
	}
	return clause
}

// stripInterface returns the value an interface conversion wraps.
func stripInterface(v ssa.Value) ssa.Value {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		return mi.X
	}
	return v
}

// isNilConst reports whether v is the constant nil.
func isNilConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}
