package sqlsite

import (
	"go/types"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// ent (entgo.io/ent) generates its API into the user's module: Client,
// Tx, one XClient per entity and the builders XQuery, XUpdate(One),
// XDelete(One), XCreate. They are recognised by shape, not by package:
// every generated type embeds the generated config, whose driver field is
// an entgo.io/ent/dialect.Driver. A chain
// client.Job.Query().Where(...).ForUpdate().Only(ctx) is a SELECT ... FOR
// UPDATE on the entity's table, run on the client or transaction whose
// XClient field starts it.
const pkgEntDialect = "entgo.io/ent/dialect"

// entVerb maps the XClient methods that start a builder to the statement
// the builder runs.
var entVerb = map[string]string{
	"Query": "SELECT", "Get": "SELECT", "GetX": "SELECT",
	"Update": "UPDATE", "UpdateOne": "UPDATE", "UpdateOneID": "UPDATE",
	"Delete": "DELETE", "DeleteOne": "DELETE", "DeleteOneID": "DELETE",
	"Create": "INSERT", "CreateBulk": "INSERT", "MapCreateBulk": "INSERT",
}

// entRun lists the builder methods that run the statement.
var entRun = map[string]bool{
	"Only": true, "OnlyX": true, "OnlyID": true, "OnlyIDX": true,
	"First": true, "FirstX": true, "FirstID": true, "FirstIDX": true,
	"All": true, "AllX": true, "IDs": true, "IDsX": true,
	"Count": true, "CountX": true, "Exist": true, "ExistX": true,
	"Save": true, "SaveX": true, "Exec": true, "ExecX": true,
}

// entTypes caches, per named type, whether it is ent-generated.
var entTypes sync.Map

// entGenerated reports whether t (or what it points to) is a type of ent's
// generated code.
func entGenerated(t types.Type) (*types.Named, bool) {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return nil, false
	}
	if v, ok := entTypes.Load(n); ok {
		return n, v.(bool)
	}
	is := false
	entTypes.Store(n, false) // a type that refers to itself is no proof
	if st, ok := n.Underlying().(*types.Struct); ok {
		for f := range st.Fields() {
			if !f.Embedded() || f.Name() != "config" {
				// XDeleteOne wraps an XDelete: one level down.
				if fn, ok := types.Unalias(f.Type()).(*types.Pointer); ok && st.NumFields() == 1 {
					if _, ok := entGenerated(fn); ok {
						is = true
					}
				}
				continue
			}
			if cst := structOfType(f.Type()); cst != nil {
				for g := range cst.Fields() {
					if pkg, name, ok := namedPath(g.Type()); ok && g.Name() == "driver" && pkg == pkgEntDialect && name == "Driver" {
						is = true
					}
				}
			}
		}
	}
	entTypes.Store(n, is)
	return n, is
}

// entKind is the handle kind of an ent-generated type: Client is a pool,
// Tx a transaction, an XClient whatever it was taken from.
func entKind(t types.Type) HandleKind {
	n, ok := entGenerated(t)
	if !ok {
		return NotHandle
	}
	switch name := n.Obj().Name(); {
	case name == "Client":
		return Pool
	case name == "Tx":
		return Tx
	case strings.HasSuffix(name, "Client"):
		return Maybe
	}
	return NotHandle
}

// classifyEnt models a method of an ent-generated type.
func (rs *Rules) classifyEnt(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	n, _ := entGenerated(recv.Type())
	tname, name := n.Obj().Name(), fn.Name()
	switch {
	case tname == "Client" && (name == "Tx" || name == "BeginTx"):
		op.Kind, op.Recv, op.RecvKind = Begin, recv, Pool
		return op, true
	case tname == "Tx" && (name == "Commit" || name == "Rollback"):
		op.Kind, op.Recv, op.RecvKind = Commit, recv, Tx
		if name == "Rollback" {
			op.Kind = Rollback
		}
		return op, true
	case tname != "Client" && strings.HasSuffix(tname, "Client"):
		verb := entVerb[name]
		if verb == "" {
			return op, false
		}
		h := entHandle(recv)
		if name == "Get" || name == "GetX" {
			st := statement{verb: verb, table: entTable(n, tname), where: []string{"id = ?"}}
			return rs.builtQuery(op, h, &st, "ent "+tname+"."+name)
		}
		op.Kind, op.Recv, op.RecvKind = Chain, h, rs.KindOf(h.Type())
		return op, true
	}
	if isEntLink(fn) {
		op.Kind, op.Recv = Chain, recv
		return op, true
	}
	if !entRun[name] {
		return op, false
	}
	root, links := chainOf(recv, isEntLink)
	start, ok := root.(*ssa.Call)
	if !ok {
		return op, false
	}
	sf := staticFunc(&start.Call)
	if sf == nil || sf.Signature().Recv() == nil || len(start.Call.Args) == 0 {
		return op, false
	}
	cn, ok := entGenerated(sf.Signature().Recv().Type())
	verb := entVerb[sf.Name()]
	if !ok || verb == "" || !strings.HasSuffix(cn.Obj().Name(), "Client") {
		return op, false
	}
	st := statement{verb: verb, table: entTable(cn, cn.Obj().Name())}
	switch sf.Name() {
	case "UpdateOne", "UpdateOneID", "DeleteOne", "DeleteOneID":
		st.where = append(st.where, "id = ?")
	}
	switch name {
	case "First", "FirstX", "FirstID", "FirstIDX":
		st.limit1 = true
	}
	for _, l := range links {
		switch l.name {
		case "Where":
			for _, p := range variadicOrNil(l.args[0]) {
				if w, ok := entPredicate(p); ok {
					st.where = append(st.where, w)
				} else {
					st.unknown = true
				}
			}
		case "Order":
			for _, o := range variadicOrNil(l.args[0]) {
				st.order = append(st.order, entOrder(o)...)
			}
		case "ForUpdate":
			st.suffix = append(st.suffix, "FOR UPDATE")
		case "ForShare":
			st.suffix = append(st.suffix, "FOR SHARE")
		}
	}
	return rs.builtQuery(op, entHandle(start.Call.Args[0]), &st, "ent "+n.Obj().Name()+"."+name)
}

// isEntLink accepts the methods of ent's builders that return the builder.
func isEntLink(fn *types.Func) bool {
	sig := fn.Signature()
	if sig.Recv() == nil || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), sig.Recv().Type()) {
		return false
	}
	_, ok := entGenerated(sig.Recv().Type())
	return ok
}

// entHandle returns the client or transaction an XClient value was taken
// from (tx.Job gives tx), or the value itself.
func entHandle(v ssa.Value) ssa.Value {
	load, ok := v.(*ssa.UnOp)
	if !ok {
		return v
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	if !ok {
		return v
	}
	if k := entKind(fa.X.Type()); k == Pool || k == Tx {
		return fa.X
	}
	return v
}

// entTable names the table of the entity of an XClient type: the Table
// constant of the entity's generated package (ent/job.Table) when the
// program has it, else ent's default, the plural snake_case name.
func entTable(client *types.Named, tname string) string {
	entity := strings.TrimSuffix(tname, "Client")
	pkg := client.Obj().Pkg()
	if pkg != nil {
		sub := pkg.Path() + "/" + strings.ToLower(entity)
		for _, imp := range pkg.Imports() {
			if imp.Path() != sub {
				continue
			}
			if c, ok := imp.Scope().Lookup("Table").(*types.Const); ok {
				if s, ok := constStringValue(c); ok {
					return s
				}
			}
		}
	}
	return defaultTableName(entity)
}

// entPredicate renders a predicate of ent's generated entity package
// (job.ID(id), job.AccountIDIn(ids...), job.CreatedAtGT(t)) as SQL on its
// column.
func entPredicate(v ssa.Value) (string, bool) {
	c, ok := v.(*ssa.Call)
	if !ok {
		return "", false
	}
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Signature().Recv() != nil || fn.Signature().Results().Len() != 1 {
		return "", false
	}
	if _, ok := entPredicateType(fn.Signature().Results().At(0).Type()); !ok {
		return "", false
	}
	name := fn.Name()
	for _, op := range []struct{ suffix, sql string }{
		{"NotIn", ""}, {"NotNil", ""}, {"IsNil", ""}, {"Contains", ""}, {"ContainsFold", ""},
		{"HasPrefix", ""}, {"HasSuffix", ""}, {"EqualFold", ""}, {"NEQ", " <> ?"}, {"EQ", " = ?"}, {"In", " = ANY(?)"},
		{"GTE", " >= ?"}, {"GT", " > ?"}, {"LTE", " <= ?"}, {"LT", " < ?"},
	} {
		if field, ok := strings.CutSuffix(name, op.suffix); ok && field != "" {
			if op.sql == "" {
				return "", false
			}
			return entColumn(field) + op.sql, true
		}
	}
	if strings.ContainsAny(name[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && !strings.HasPrefix(name, "Has") &&
		name != "And" && name != "Or" && name != "Not" {
		return entColumn(name) + " = ?", true // job.AccountID(v): equality
	}
	return "", false
}

// entPredicateType reports whether t is one of ent's generated predicate
// types (predicate.Job): a named function type of a package named
// predicate.
func entPredicateType(t types.Type) (*types.Named, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Name() != "predicate" {
		return nil, false
	}
	_, isFunc := n.Underlying().(*types.Signature)
	return n, isFunc
}

// entColumn is the column of a generated field name: ent names fields in
// snake_case and their Go names in CamelCase.
func entColumn(field string) string {
	if field == "ID" {
		return "id"
	}
	return snakeCase(field)
}

// entOrder renders an order option: job.ByID(), job.ByAccountID(sql.OrderDesc())
// (taken as ascending: the options are not read), ent.Asc("id"), ent.Desc("id").
func entOrder(v ssa.Value) []string {
	if ct, ok := v.(*ssa.ChangeType); ok {
		v = ct.X
	}
	c, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Signature().Recv() != nil {
		return nil
	}
	switch name := fn.Name(); {
	case name == "Asc" || name == "Desc":
		var out []string
		for _, f := range constStrings(c.Call.Args[0]) {
			if name == "Desc" {
				f += " DESC"
			}
			out = append(out, f)
		}
		return out
	case strings.HasPrefix(name, "By") && len(name) > 2:
		return []string{entColumn(name[2:])}
	}
	return nil
}

// ForgetTypes empties the package's caches of what it found in types, each
// keyed by a types object (entTypes, fieldTexts; a Rules' own by its
// ForgetTypes): a driver that drops a program's types calls it so that the
// caches do not keep them alive. The next use fills them again.
func ForgetTypes() {
	entTypes.Clear()
	fieldTexts.Clear()
}
