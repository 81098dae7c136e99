package sqlsite

import (
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgSquirrel is Masterminds/squirrel, a query builder: a chain of value
// methods (From, Where, Suffix, ...) describes the statement, which runs
// on the handle given to RunWith (QueryRow, Exec, ...) or is rendered by
// ToSql for a driver call.
const pkgSquirrel = "github.com/Masterminds/squirrel"

// squirrelStart maps the constructors to the statement they build.
var squirrelStart = map[string]string{
	"Select": "SELECT", "Update": "UPDATE", "Delete": "DELETE", "Insert": "INSERT", "Replace": "INSERT",
}

// squirrelRun lists the builder methods that run the statement.
var squirrelRun = map[string]bool{
	"Exec": true, "Query": true, "QueryRow": true, "Scan": true,
	"ExecContext": true, "QueryContext": true, "QueryRowContext": true, "ScanContext": true,
}

// isSquirrelLink accepts the squirrel methods that return a builder: the
// builders' own (From, Where, Suffix, RunWith, ...) and the statement
// builder's (PlaceholderFormat, RunWith, and Select, Update, ... which
// start a statement).
func isSquirrelLink(fn *types.Func) bool {
	sig := fn.Signature()
	if fn.Pkg() == nil || fn.Pkg().Path() != pkgSquirrel || sig.Recv() == nil || sig.Results().Len() != 1 {
		return false
	}
	pkg, name, ok := namedPath(sig.Results().At(0).Type())
	if !ok || pkg != pkgSquirrel {
		return false
	}
	switch name {
	case "SelectBuilder", "UpdateBuilder", "DeleteBuilder", "InsertBuilder", "StatementBuilderType":
		return true
	}
	return false
}

// classifySquirrel models a builder method that runs the statement on the
// runner given to RunWith.
func (rs *Rules) classifySquirrel(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	if recv == nil || !squirrelRun[fn.Name()] {
		return op, false
	}
	st, runner, ok := squirrelStatement(recv)
	if runner == nil {
		return op, false
	}
	if ok {
		if op, ok := rs.builtQuery(op, runner, st, "squirrel "+strings.ToLower(st.verb)+" builder's "+fn.Name()); ok {
			return op, true
		}
	}
	return rs.unbuiltQuery(op, runner, "a squirrel builder the model cannot rebuild", "squirrel builder's "+fn.Name())
}

// squirrelToSQL renders the statement of a builder whose ToSql is called
// (sql, args, err := q.ToSql()).
func squirrelToSQL(call *ssa.Call) (ssa.Value, bool) {
	fn := staticFunc(&call.Call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgSquirrel || fn.Name() != "ToSql" || len(call.Call.Args) == 0 {
		return nil, false
	}
	st, _, ok := squirrelStatement(call.Call.Args[0])
	if !ok {
		return nil, false
	}
	text, ok := st.sql()
	if !ok {
		return nil, false
	}
	return st.textValue(text, call.Parent()), true
}

// squirrelStatement reconstructs the statement a builder value describes,
// and the runner it was given, if any.
func squirrelStatement(v ssa.Value) (*statement, ssa.Value, bool) {
	root, links := chainOf(v, isSquirrelLink)
	st := &statement{}
	var runner ssa.Value
	start := func(name string, args []ssa.Value) {
		st.verb = squirrelStart[name]
		if st.verb != "SELECT" && len(args) > 0 {
			st.table = st.name(args[0])
		}
	}
	// sq.Select(...), a package function, starts the chain; the
	// statement builder's Select method is a link of it.
	if c, ok := root.(*ssa.Call); ok {
		if fn := staticFunc(&c.Call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkgSquirrel && fn.Signature().Recv() == nil {
			start(fn.Name(), c.Call.Args)
		}
	}
	for _, l := range links {
		switch l.name {
		case "Select", "Update", "Delete", "Insert", "Replace":
			start(l.name, l.args)
		case "From", "Into", "Table":
			st.table = st.name(l.args[0])
		case "Where":
			conds, ok := squirrelPred(l.args[0])
			for _, c := range conds {
				if c.args == nil && strings.Contains(c.text, "?") && len(l.args) > 1 {
					// Where("account_id = ?", id): the values follow.
					vals, known := variadicElems(l.args[1])
					if !known {
						st.noArgs = true
					}
					st.addWhere(c.text, vals...)
					continue
				}
				st.addWhere(c.text, c.args...)
			}
			if !ok {
				st.unknown = true
			}
		case "OrderBy":
			st.order = append(st.order, constStrings(l.args[0])...)
		case "Limit":
			st.limit1 = isConstOne(l.args[0])
		case "Set":
			if st.set == "" {
				st.set = st.name(l.args[0])
			}
		case "Suffix", "SuffixExpr":
			if s, ok := squirrelFragment(l.args[0]); ok {
				st.suffix = append(st.suffix, s)
			} else if l.name == "SuffixExpr" {
				st.unknown = true
			}
		case "Prefix", "PrefixExpr":
			if s, ok := squirrelFragment(l.args[0]); ok {
				st.prefix = append(st.prefix, s)
			}
		case "Columns":
			st.columns = constStrings(l.args[0])
		case "Values":
			st.rows++
			if vals, ok := variadicElems(l.args[0]); ok && st.rows == 1 {
				st.values = vals
			}
		case "RunWith":
			runner = l.args[0]
		}
	}
	if st.rows == 1 && len(st.columns) == len(st.values) && len(st.columns) > 0 && st.where == nil {
		// INSERT INTO t (a, b) VALUES (?, ?): the row's values are
		// the markers' (statement.body).
		st.args = append(st.args, st.values...)
	}
	if st.verb == "" {
		return nil, runner, false
	}
	return st, runner, true
}

// squirrelCond is one condition of a Where, with the values of its ?
// markers where the condition map holds them (nil for a raw fragment,
// whose values follow it in the Where call).
type squirrelCond struct {
	text string
	args []ssa.Value
}

// squirrelPred renders a Where predicate: a constant string, or the
// constant keys of a condition map literal: sq.Eq{"id": id} (a slice value
// is a set of rows, id IN (...), as squirrel renders it), sq.Gt, sq.GtOrEq,
// sq.Lt and sq.LtOrEq (comparisons), and sq.And of those. It reports false
// when part of it cannot be rendered (sq.Or, sq.NotEq, sq.Like, ...): the
// rows it picks are then unknown.
func squirrelPred(v ssa.Value) ([]squirrelCond, bool) {
	if s, ok := squirrelFragment(v); ok {
		return []squirrelCond{{text: s}}, true
	}
	x := stripConversions(v)
	pkg, name, ok := namedPath(x.Type())
	if !ok || pkg != pkgSquirrel {
		return nil, false
	}
	if name == "And" {
		elems, ok := variadicElems(x)
		if !ok {
			return nil, false
		}
		var out []squirrelCond
		all := true
		for _, e := range elems {
			w, ok := squirrelPred(e)
			out = append(out, w...)
			all = all && ok
		}
		return out, all
	}
	op, ok := squirrelOps[name]
	if !ok {
		return nil, false
	}
	entries := mapEntries(x)
	if len(entries) == 0 {
		return nil, false
	}
	var out []squirrelCond
	for _, e := range entries {
		val := stripInterface(e.value)
		switch {
		case op == "=" && isListValue(val):
			out = append(out, squirrelCond{e.key + " IN ?", []ssa.Value{val}})
		case op == "=" && isNilConst(val):
			out = append(out, squirrelCond{e.key + " IS NULL", []ssa.Value{}})
		default:
			out = append(out, squirrelCond{e.key + " " + op + " ?", []ssa.Value{val}})
		}
	}
	return out, true
}

// squirrelOps maps squirrel's condition maps to their operator.
var squirrelOps = map[string]string{"Eq": "=", "Gt": ">", "GtOrEq": ">=", "Lt": "<", "LtOrEq": "<="}

// isListValue reports whether v, a value stored in an interface, holds a
// slice or an array (not bytes): the builders expand it into a list.
func isListValue(v ssa.Value) bool {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	var elem types.Type
	switch t := v.Type().Underlying().(type) {
	case *types.Slice:
		elem = t.Elem()
	case *types.Array:
		elem = t.Elem()
	default:
		return false
	}
	b, ok := elem.Underlying().(*types.Basic)
	return !ok || b.Kind() != types.Byte
}

// squirrelFragment returns the SQL text of a raw fragment: a constant
// string (also one built from constants), or a squirrel.Expr of one
// (sq.Expr("id IN (SELECT job_id FROM runs WHERE id = ? FOR UPDATE)", id)).
func squirrelFragment(v ssa.Value) (string, bool) {
	v = stripConversions(v)
	if c, ok := v.(*ssa.Call); ok {
		fn := staticFunc(&c.Call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgSquirrel || fn.Name() != "Expr" || len(c.Call.Args) == 0 {
			return "", false
		}
		v = c.Call.Args[0]
	}
	if !isString(v.Type()) {
		return "", false
	}
	return constText(v)
}

// mapKeys returns the constant keys, sorted, of a map literal passed as an
// interface (sq.Eq{"id": id}, GORM's map[string]any{"balance": b}).
func mapKeys(v ssa.Value) []string {
	var out []string
	for _, e := range mapEntries(v) {
		out = append(out, e.key)
	}
	return out
}

// mapEntry is one constant key of a map literal and the value stored at it.
type mapEntry struct {
	key   string
	value ssa.Value
}

// mapEntries returns the entries with constant keys, sorted by key, of a
// map literal (also one passed as an interface).
func mapEntries(v ssa.Value) []mapEntry {
	mm, ok := stripConversions(v).(*ssa.MakeMap)
	if !ok {
		return nil
	}
	var out []mapEntry
	for _, ref := range *mm.Referrers() {
		if u, ok := ref.(*ssa.MapUpdate); ok && u.Map == mm {
			if k, ok := constString(u.Key); ok {
				out = append(out, mapEntry{k, u.Value})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}
