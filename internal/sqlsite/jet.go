package sqlsite

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// go-jet (github.com/go-jet/jet/v2) builds statements from code its
// generator writes for each table: a package variable (table.Orders) of a
// struct type that embeds postgres.Table, made by postgres.NewTable(schema,
// "orders", alias, columns...), with one field per column (Orders.ID, a
// postgres.ColumnInteger). A statement is started by postgres.SELECT(...) or
// a table's UPDATE, INSERT, DELETE or SELECT, extended by methods of the
// statement interfaces (FROM, WHERE, FOR(UPDATE().NOWAIT()), SET, ...), and
// run on the handle its run method is given, a qrm.DB: QueryContext(ctx, tx,
// &dest), ExecContext(ctx, db), Query(db, &dest), Exec(db), Rows(ctx, db).
// The handle decides the transaction. Only the postgres dialect is modelled.
const (
	pkgJet         = "github.com/go-jet/jet/v2"
	pkgJetPG       = pkgJet + "/postgres"
	pkgJetInternal = pkgJet + "/internal/jet"
)

// jetRun maps the statement methods that run it to the index of their
// handle argument.
var jetRun = map[string]int{
	"Query": 0, "QueryContext": 1, "Exec": 0, "ExecContext": 1, "Rows": 1,
}

// jetStart maps the table methods that start a statement to its verb.
var jetStart = map[string]string{"SELECT": "SELECT", "UPDATE": "UPDATE", "INSERT": "INSERT", "DELETE": "DELETE"}

// jetLocks maps the row-lock constructors of package postgres to their
// strength.
var jetLocks = map[string]string{
	"UPDATE": "FOR UPDATE", "NO_KEY_UPDATE": "FOR NO KEY UPDATE", "SHARE": "FOR SHARE", "KEY_SHARE": "FOR KEY SHARE",
}

// jetOps maps the comparison methods of a column to their operator.
var jetOps = map[string]string{
	"EQ": "=", "NOT_EQ": "<>", "GT": ">", "GT_EQ": ">=", "LT": "<", "LT_EQ": "<=",
	"IS_NOT_DISTINCT_FROM": "IS NOT DISTINCT FROM",
}

// isJetPackage reports whether path is go-jet's postgres dialect or its
// internal package, which declares the methods its interfaces share.
func isJetPackage(path string) bool { return path == pkgJetPG || path == pkgJetInternal }

// jetStatementType reports whether t is one of go-jet's postgres statement
// interfaces (SelectStatement, UpdateStatement, ...), or the Statement they
// all are (postgres.Statement, an alias of the internal package's).
func jetStatementType(t types.Type) bool {
	pkg, name, ok := namedPath(t)
	return ok && isJetPackage(pkg) && strings.HasSuffix(name, "Statement")
}

// isJetLink accepts the statement methods that return a statement.
func isJetLink(fn *types.Func) bool {
	sig := fn.Signature()
	if fn.Pkg() == nil || !isJetPackage(fn.Pkg().Path()) || sig.Recv() == nil || sig.Results().Len() != 1 {
		return false
	}
	return jetStatementType(sig.Recv().Type()) && jetStatementType(sig.Results().At(0).Type())
}

// classifyJet models a statement method that runs the statement on the
// handle it is given. A statement that cannot be rebuilt still runs: its
// text is then unknown, counted as built at run time with the reason.
func (rs *Rules) classifyJet(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	i, runs := jetRun[fn.Name()]
	if recv == nil || !runs || i >= len(op.Args) || !jetStatementType(recv.Type()) {
		return op, false
	}
	handle := stripConversions(op.Args[i])
	st, ok := jetStatement(recv)
	via := "go-jet statement's " + fn.Name()
	if !ok {
		return rs.unbuiltQuery(op, handle, "a go-jet statement the model cannot rebuild", via)
	}
	via = "go-jet " + strings.ToLower(st.verb) + " statement's " + fn.Name()
	return rs.builtQuery(op, handle, st, via)
}

// jetToSQL returns the text of a statement whose Sql or DebugSql method is
// called (query, args := stmt.Sql()), for a driver call.
func jetToSQL(c *ssa.Call) (ssa.Value, bool) {
	if !c.Call.IsInvoke() || !jetStatementType(c.Call.Value.Type()) {
		return nil, false
	}
	if name := c.Call.Method.Name(); name != "Sql" && name != "DebugSql" {
		return nil, false
	}
	st, ok := jetStatement(c.Call.Value)
	if !ok {
		return nil, false
	}
	text, ok := st.sql()
	if !ok {
		return nil, false
	}
	return st.textValue(text, c.Parent()), true
}

// jetStatement reconstructs the statement a go-jet statement value
// describes. The table is a hole: the generated table variable's SQL name is
// read by the resolver (jetTableName), which knows other packages' facts.
func jetStatement(v ssa.Value) (*statement, bool) {
	root, links := chainOf(v, isJetLink)
	c, ok := root.(*ssa.Call)
	if !ok {
		return nil, false
	}
	st := &statement{}
	if lock, ok := jetLockTable(st, c, links); ok {
		return lock, true
	}
	switch {
	case c.Call.IsInvoke() && jetStart[c.Call.Method.Name()] != "" && jetTableType(c.Call.Value.Type()):
		// Orders.UPDATE(cols...), Orders.INSERT(...), Orders.DELETE(),
		// Orders.SELECT(...).
		st.verb = jetStart[c.Call.Method.Name()]
		st.table = st.hole(c.Call.Value)
		if st.verb == "UPDATE" && len(c.Call.Args) > 0 {
			for _, col := range elemsOf(c.Call.Args[0]) {
				if name, ok := jetColumn(col); ok {
					st.set = name
					break
				}
			}
		}
	default:
		fn := staticFunc(&c.Call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgJetPG || fn.Name() != "SELECT" {
			return nil, false
		}
		st.verb = "SELECT"
	}
	for _, l := range links {
		switch l.name {
		case "FROM":
			if st.verb == "SELECT" && st.table == "" && len(l.args) > 0 {
				if elems := elemsOf(l.args[0]); len(elems) > 0 {
					if t := stripConversions(elems[0]); jetTableType(t.Type()) {
						st.table = st.hole(t)
					}
				}
			}
		case "WHERE":
			if !jetPred(st, l.args[0]) {
				st.unknown = true
			}
		case "FOR":
			st.suffix = append(st.suffix, jetLock(l.args[0]))
		case "ORDER_BY":
			for _, o := range elemsOf(l.args[0]) {
				st.order = append(st.order, jetOrder(o))
			}
		case "LIMIT":
			st.limit1 = isConstOne(l.args[0])
		case "SET":
			if st.set == "" {
				if name, ok := jetAssigned(l.args[0]); ok {
					st.set = name
				}
			}
		}
	}
	if st.table == "" {
		return nil, false
	}
	return st, true
}

// jetLockTable renders LOCK TABLE: postgres.LOCK(tables...) or a table's
// LOCK(), with IN(LOCK_SHARE, ...) and NOWAIT(). Only the first table is
// locked in the model.
func jetLockTable(st *statement, c *ssa.Call, links []link) (*statement, bool) {
	var table ssa.Value
	if c.Call.IsInvoke() {
		if c.Call.Method.Name() != "LOCK" || !jetTableType(c.Call.Value.Type()) {
			return nil, false
		}
		table = c.Call.Value
	} else {
		fn := staticFunc(&c.Call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgJetPG || fn.Name() != "LOCK" || len(c.Call.Args) != 1 {
			return nil, false
		}
		elems := elemsOf(c.Call.Args[0])
		if len(elems) == 0 {
			return nil, false
		}
		table = stripConversions(elems[0])
	}
	text := "LOCK TABLE " + st.hole(table)
	nowait := false
	for _, l := range links {
		switch l.name {
		case "IN":
			mode, ok := constString(l.args[0])
			if !ok {
				return nil, false
			}
			text += " IN " + mode + " MODE"
		case "NOWAIT":
			nowait = true
		}
	}
	if nowait {
		text += " NOWAIT"
	}
	st.verb, st.raw = "LOCK", text
	return st, true
}

// jetTableType reports whether t is a go-jet table: postgres.Table and its
// readable and writable views, or a generated table type, which embeds
// postgres.Table (through a pointer and an unexported struct).
func jetTableType(t types.Type) bool {
	return jetTableTypeDepth(t, 0)
}

func jetTableTypeDepth(t types.Type, depth int) bool {
	if pkg, name, ok := namedPath(t); ok && pkg == pkgJetPG {
		return name == "Table" || name == "ReadableTable" || name == "WritableTable"
	}
	if depth >= 3 {
		return false
	}
	st := structOfType(t)
	if st == nil {
		return false
	}
	for f := range st.Fields() {
		if f.Embedded() && jetTableTypeDepth(f.Type(), depth+1) {
			return true
		}
	}
	return false
}

// jetColumn returns the SQL name of a generated column field (Orders.ID,
// Orders.WarehouseID): the generator names the field after the column in
// CamelCase, so the column is the field's name in snake_case.
func jetColumn(v ssa.Value) (string, bool) {
	v = stripConversions(v)
	var (
		base  ssa.Value
		field int
	)
	switch x := v.(type) {
	case *ssa.UnOp:
		fa, ok := x.X.(*ssa.FieldAddr)
		if !ok || x.Op != token.MUL {
			return "", false
		}
		base, field = fa.X, fa.Field
	case *ssa.Field:
		base, field = x.X, x.Field
	default:
		return "", false
	}
	st := structOfType(base.Type())
	if st == nil || field >= st.NumFields() {
		return "", false
	}
	f := st.Field(field)
	if pkg, name, ok := namedPath(f.Type()); !ok || pkg != pkgJetPG || !strings.HasPrefix(name, "Column") || name == "ColumnList" {
		return "", false // AllColumns, MutableColumns: lists, no one column
	}
	return snakeCase(f.Name()), true
}

// jetPred adds the conditions of a WHERE expression: comparisons of a
// column with a literal (Orders.ID.EQ(Int(id))), IS NULL, IN of literals,
// and AND of those. It reports false for what it cannot render (OR, a
// comparison with a column or a sub-select, a function): the rows are then
// "some rows".
func jetPred(st *statement, v ssa.Value) bool {
	c, ok := stripConversions(v).(*ssa.Call)
	if !ok || !c.Call.IsInvoke() {
		return false
	}
	m := c.Call.Method.Name()
	if m == "AND" && len(c.Call.Args) == 1 {
		left := jetPred(st, c.Call.Value)
		right := jetPred(st, c.Call.Args[0])
		return left && right
	}
	col, ok := jetColumn(c.Call.Value)
	if !ok {
		return false
	}
	switch {
	case jetOps[m] != "" && len(c.Call.Args) == 1:
		val, ok := jetLiteral(c.Call.Args[0])
		if !ok {
			return false
		}
		st.addWhere(col+" "+jetOps[m]+" ?", val)
		return true
	case m == "IS_NULL" || m == "IS_NOT_NULL":
		st.addWhere(col + " " + strings.ReplaceAll(m, "_", " "))
		return true
	case m == "IN" && len(c.Call.Args) == 1:
		elems, ok := variadicElems(c.Call.Args[0])
		if !ok || len(elems) == 0 {
			return false
		}
		for _, e := range elems {
			if _, ok := jetLiteral(e); !ok {
				return false // a sub-select or a column
			}
		}
		st.addWhere(col + " IN ?")
		return true
	}
	return false
}

// jetLiteral returns the Go value of a literal expression: postgres.Int(v),
// Int32(v), String(v), UUID(v), ... (functions or function variables of
// package postgres that wrap their one argument).
func jetLiteral(v ssa.Value) (ssa.Value, bool) {
	c, ok := stripConversions(v).(*ssa.Call)
	if !ok || c.Call.IsInvoke() || len(c.Call.Args) != 1 {
		return nil, false
	}
	if fn := staticFunc(&c.Call); fn != nil {
		if fn.Pkg() == nil || !isJetPackage(fn.Pkg().Path()) || fn.Signature().Recv() != nil {
			return nil, false
		}
	} else if g := loadedGlobal(c.Call.Value); g == nil || g.Pkg == nil || !isJetPackage(g.Pkg.Pkg.Path()) {
		return nil, false // var Int = jet.Int: a function variable
	}
	return stripInterface(c.Call.Args[0]), true
}

// loadedGlobal returns the package variable v loads, or nil.
func loadedGlobal(v ssa.Value) *ssa.Global {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		g, _ := u.X.(*ssa.Global)
		return g
	}
	return nil
}

// jetLock renders a row lock: UPDATE(), NO_KEY_UPDATE(), SHARE() or
// KEY_SHARE() (function variables of package postgres), with NOWAIT() or
// SKIP_LOCKED(); OF(...) keeps the lock. One it cannot read is taken as FOR
// UPDATE, the strongest.
func jetLock(v ssa.Value) string {
	c, ok := stripConversions(v).(*ssa.Call)
	if !ok {
		return "FOR UPDATE"
	}
	if c.Call.IsInvoke() {
		base := jetLock(c.Call.Value)
		switch c.Call.Method.Name() {
		case "NOWAIT":
			return base + " NOWAIT"
		case "SKIP_LOCKED":
			return base + " SKIP LOCKED"
		}
		return base
	}
	if g := loadedGlobal(c.Call.Value); g != nil && g.Pkg != nil && g.Pkg.Pkg.Path() == pkgJetPG && jetLocks[g.Name()] != "" {
		return jetLocks[g.Name()]
	}
	return "FOR UPDATE"
}

// jetOrder renders one ORDER_BY clause (Orders.ID.ASC()); one it cannot
// render still orders the rows, by something: "1".
func jetOrder(v ssa.Value) string {
	if c, ok := stripConversions(v).(*ssa.Call); ok && c.Call.IsInvoke() {
		if col, ok := jetColumn(c.Call.Value); ok {
			switch c.Call.Method.Name() {
			case "ASC":
				return col
			case "DESC":
				return col + " DESC"
			}
		}
	}
	return "1"
}

// jetAssigned returns the column of an UPDATE's first assignment
// (StockLevels.OnHand.SET(...)).
func jetAssigned(v ssa.Value) (string, bool) {
	c, ok := stripConversions(v).(*ssa.Call)
	if !ok || !c.Call.IsInvoke() || c.Call.Method.Name() != "SET" {
		return "", false
	}
	return jetColumn(c.Call.Value)
}

// jetTable resolves a go-jet table value to its SQL name: the generated
// variable it comes from (through its embedded fields, an AS alias or
// FromSchema), named where its package's initialisation makes it or, for
// another package's variable, by that package's fact (ext.TableName).
func (r *resolver) jetTable(v ssa.Value, depth int) alts {
	for range maxChain {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeInterface:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		case *ssa.FieldAddr:
			v = x.X
		case *ssa.Field:
			v = x.X
		case *ssa.UnOp:
			if g, ok := x.X.(*ssa.Global); ok && x.Op == token.MUL {
				if name, ok := JetTableName(g); ok {
					return single(constNode(name))
				}
				if r.ext != nil && r.ext.TableName != nil {
					if name, ok := r.ext.TableName(g.Object()); ok {
						return single(constNode(name))
					}
				}
				return unknown("go-jet table " + g.Name() + ", whose name is not known")
			}
			if x.Op != token.MUL {
				return unknown(describe(x))
			}
			v = x.X
		case *ssa.Parameter, *ssa.FreeVar:
			// A table the function is given: its callers bind it.
			return r.param(x, depth)
		case *ssa.Call:
			if x.Call.IsInvoke() {
				// Orders.INNER_JOIN(Lines, ...): the first table, the
				// only one the model locks.
				if !strings.HasSuffix(x.Call.Method.Name(), "_JOIN") {
					return unknown(describe(x))
				}
				v = x.Call.Value
				continue
			}
			// Orders.AS("o") and Orders.FromSchema(s): the same table.
			fn := staticFunc(&x.Call)
			if fn == nil || fn.Signature().Recv() == nil || len(x.Call.Args) == 0 || fn.Name() != "AS" && fn.Name() != "FromSchema" {
				return unknown(describe(x))
			}
			v = x.Call.Args[0]
		default:
			return unknown(describe(v))
		}
	}
	return unknown("a go-jet table reached through too many steps")
}

// JetTableName returns the SQL name of a generated go-jet table variable of
// the package being analysed (var Orders = newOrdersTable("public",
// "orders", "")): the name its initialiser passes, through the generated
// constructors, to postgres.NewTable. It reports false for another
// package's variable, whose initialiser this package's SSA does not hold,
// and for a name that is not constant.
func JetTableName(g *ssa.Global) (string, bool) {
	if g.Pkg == nil || !jetTableType(g.Type().(*types.Pointer).Elem()) {
		return "", false
	}
	init := g.Pkg.Func("init")
	if init == nil {
		return "", false
	}
	for _, b := range init.Blocks {
		for _, instr := range b.Instrs {
			if s, ok := instr.(*ssa.Store); ok && s.Addr == g {
				return jetNewTable(s.Val, nil, 0)
			}
		}
	}
	return "", false
}

// jetEnv binds a generated constructor's parameters to what its caller
// passes, in the caller's own environment.
type jetEnv struct {
	vals  map[*ssa.Parameter]ssa.Value
	outer *jetEnv
}

// jetNewTable follows a table value back to the name given to
// postgres.NewTable: through the generated constructors (a call of a
// function of the package with one return), the struct they return (the
// value stored into its embedded table field, not EXCLUDED's), and their
// parameters, bound to the arguments of their call.
func jetNewTable(v ssa.Value, env *jetEnv, depth int) (string, bool) {
	if depth > 12 {
		return "", false
	}
	switch x := v.(type) {
	case *ssa.Const:
		return constString(x)
	case *ssa.Parameter:
		if env != nil && env.vals[x] != nil {
			return jetNewTable(env.vals[x], env.outer, depth+1)
		}
	case *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType:
		return jetNewTable(stripConversions(x), env, depth+1)
	case *ssa.UnOp:
		if a, ok := x.X.(*ssa.Alloc); ok && x.Op == token.MUL {
			return jetNewTable(a, env, depth+1)
		}
	case *ssa.Alloc:
		for _, ref := range *x.Referrers() {
			fa, ok := ref.(*ssa.FieldAddr)
			if !ok || fa.X != x {
				continue
			}
			st := structOfType(x.Type())
			if st == nil || !st.Field(fa.Field).Embedded() || !jetTableType(st.Field(fa.Field).Type()) {
				continue
			}
			for _, r2 := range *fa.Referrers() {
				if s, ok := r2.(*ssa.Store); ok && s.Addr == fa {
					return jetNewTable(s.Val, env, depth+1)
				}
			}
		}
	case *ssa.Call:
		callee := x.Call.StaticCallee()
		if callee == nil {
			return "", false
		}
		if obj, ok := callee.Object().(*types.Func); ok && obj.Pkg() != nil && obj.Pkg().Path() == pkgJetPG && obj.Name() == "NewTable" {
			if len(x.Call.Args) < 2 {
				return "", false
			}
			return jetNewTable(x.Call.Args[1], env, depth+1)
		}
		ret := singleReturn(callee)
		if ret == nil || len(callee.Params) != len(x.Call.Args) {
			return "", false
		}
		inner := &jetEnv{vals: map[*ssa.Parameter]ssa.Value{}, outer: env}
		for i, p := range callee.Params {
			inner.vals[p] = x.Call.Args[i]
		}
		return jetNewTable(ret, inner, depth+1)
	}
	return "", false
}
