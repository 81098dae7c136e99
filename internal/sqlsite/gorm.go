package sqlsite

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgGorm is GORM v2. Its *gorm.DB is a pool or a transaction depending on
// how it was obtained, so it is a Maybe handle; a chain of its methods
// (Model, Where, Clauses, ...) ends in a finisher (First, Find, Update,
// Delete, ...) that runs the statement the chain describes.
const pkgGorm = "gorm.io/gorm"

// gormFinish maps GORM's finishers to the statement they run. Save writes
// an existing row (UPDATE) in the common case of a model with its key set.
var gormFinish = map[string]string{
	"First":           "SELECT",
	"Take":            "SELECT",
	"Last":            "SELECT",
	"Find":            "SELECT",
	"FirstOrInit":     "SELECT",
	"FirstOrCreate":   "SELECT",
	"Scan":            "SELECT",
	"Pluck":           "SELECT",
	"Count":           "SELECT",
	"Row":             "SELECT",
	"Rows":            "SELECT",
	"FindInBatches":   "SELECT",
	"Update":          "UPDATE",
	"Updates":         "UPDATE",
	"UpdateColumn":    "UPDATE",
	"UpdateColumns":   "UPDATE",
	"Save":            "UPDATE",
	"Delete":          "DELETE",
	"Create":          "INSERT",
	"CreateInBatches": "INSERT",
}

// gormNotLink lists the *gorm.DB methods returning *gorm.DB that do not
// add to a chain.
var gormNotLink = []string{"Begin", "Commit", "Rollback", "SavePoint", "RollbackTo", "Exec", "Transaction", "Connection"}

func isGormLink(fn *types.Func) bool {
	if _, fin := gormFinish[fn.Name()]; fin {
		return false
	}
	return sameTypeLink(pkgGorm, gormNotLink...)(fn)
}

// classifyGorm models a method of *gorm.DB.
func (rs *Rules) classifyGorm(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	if recv == nil {
		return op, false
	}
	name := fn.Name()
	root, links := chainOf(recv, isGormLink)
	op.Recv, op.RecvKind = root, rs.KindOf(root.Type())
	switch name {
	case "Begin":
		op.Kind = Begin
		return op, true
	case "Commit":
		op.Kind = Commit
		return op, true
	case "Rollback":
		op.Kind = Rollback
		return op, true
	case "Transaction":
		op.Kind, op.Func = BeginFunc, 0
		return op, true
	case "Exec":
		op.Kind, op.Query, op.Params = Query, 0, 1
		return op, true
	}
	verb, ok := gormFinish[name]
	if !ok {
		if isGormLink(fn) {
			op.Kind = Chain
			op.Recv = recv
			return op, true
		}
		return op, false
	}
	st := statement{verb: verb}
	var model ssa.Value
	for _, l := range gormScopes(links, 0) {
		switch l.name {
		case "Table":
			if s, ok := constString(l.args[0]); ok {
				st.table = firstWord(s)
			}
		case "Model":
			model = l.args[0]
		case "Where":
			if s, ok := constString(l.args[0]); ok {
				var vals []ssa.Value
				if len(l.args) > 1 {
					elems, ok := variadicElems(l.args[1])
					if !ok {
						st.noArgs = true
					}
					vals = elems
				}
				st.addWhere(s, vals...)
			} else {
				st.unknown = true // a struct or map condition
			}
		case "Or", "Not":
			st.unknown = true
		case "Order":
			if s, ok := constString(l.args[0]); ok {
				st.order = append(st.order, s)
			}
		case "Raw":
			if s, ok := constString(l.args[0]); ok {
				st.raw = s
			}
		case "Clauses":
			for _, e := range variadicOrNil(l.args[0]) {
				if f := structFields(e); f["Strength"] != "" {
					lock := "FOR " + f["Strength"]
					if f["Options"] != "" {
						lock += " " + f["Options"]
					}
					st.suffix = append(st.suffix, lock)
				}
			}
		}
	}
	if model == nil && len(op.Args) > 0 && name != "Count" && name != "Row" && name != "Rows" && name != "Pluck" {
		model = op.Args[0]
	}
	switch {
	case (name == "Update" || name == "UpdateColumn") && len(op.Args) > 0:
		st.set, _ = constString(op.Args[0])
	case (name == "Updates" || name == "UpdateColumns") && len(op.Args) > 0:
		if keys := mapKeys(op.Args[0]); len(keys) > 0 {
			st.set = keys[0]
		}
	}
	if st.table == "" && model != nil {
		st.table = rs.gormTable(model)
	}
	switch name {
	case "First", "Take", "Last":
		st.limit1 = true
	}
	if gormInline[name] && len(op.Args) > 1 {
		gormInlineConds(&st, op.Args[1])
	}
	if (verb == "UPDATE" || verb == "DELETE") && len(st.where) == 0 && !st.unknown {
		// GORM refuses an UPDATE or DELETE without conditions: one
		// without any runs on the model's primary key.
		st.where = append(st.where, "id = ?")
		st.noArgs = true // the model's key, not a value the code passes
	}
	return rs.builtQuery(op, root, &st, "(*gorm.DB)."+name)
}

// gormTable names the table of a model the way GORM does: its TableName
// method, or its type name in plural snake_case.
func (rs *Rules) gormTable(model ssa.Value) string {
	t := modelType(model)
	if t == nil {
		return ""
	}
	if s, ok := tableNameMethod(progOf(model), t, rs.externals()); ok {
		return s
	}
	return defaultTableName(t.Obj().Name())
}

// variadicOrNil returns the elements of a variadic argument, or nil.
func variadicOrNil(v ssa.Value) []ssa.Value {
	elems, _ := variadicElems(v)
	return elems
}

// firstWord returns a table expression's table ("jobs AS j" gives "jobs").
func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// gormInline lists the finishers whose arguments after the first are
// conditions (db.First(&job, id), db.Find(&jobs, "state = ?", s)).
var gormInline = map[string]bool{
	"First": true, "Take": true, "Last": true, "Find": true, "FirstOrInit": true, "FirstOrCreate": true, "Delete": true,
}

// gormInlineConds adds a finisher's inline conditions: a string condition,
// or a primary key value.
func gormInlineConds(st *statement, conds ssa.Value) {
	elems, ok := variadicElems(conds)
	if !ok {
		st.unknown = true
		return
	}
	if len(elems) == 0 {
		return
	}
	if s, ok := constString(elems[0]); ok {
		st.addWhere(s, elems[1:]...)
		return
	}
	v := elems[0]
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	if b, ok := v.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
		st.addWhere("id = ?", elems[0]) // a primary key value
		return
	}
	if isListValue(v) {
		st.addWhere("id IN ?", v) // primary key values: a set of rows
		return
	}
	st.unknown = true
}

// maxScopeDepth bounds scopes that apply other scopes.
const maxScopeDepth = 3

// gormScopes replaces each Scopes link of a chain by the links of the
// scope functions it applies (db.Scopes(forUpdate, paginate(2))), each a
// function of the analysed code whose single return is a chain on its
// *gorm.DB parameter: GORM runs them on the statement before it is sent.
// A scope that cannot be followed adds nothing.
func gormScopes(links []link, depth int) []link {
	var out []link
	for _, l := range links {
		if l.name != "Scopes" || len(l.args) == 0 {
			out = append(out, l)
			continue
		}
		if depth >= maxScopeDepth {
			continue
		}
		for _, e := range variadicOrNil(l.args[0]) {
			fn := scopeFunc(e)
			if fn == nil || len(fn.Params) != 1 {
				continue
			}
			ret := singleReturn(fn)
			if ret == nil {
				continue
			}
			root, inner := chainOf(ret, isGormLink)
			if root != fn.Params[0] {
				continue // a chain on another handle than the one the scope is given
			}
			out = append(out, gormScopes(inner, depth+1)...)
		}
	}
	return out
}

// scopeFunc returns the function a scope value is: a function, a closure,
// or the closure a function of the analysed code returns (paginate(2)).
func scopeFunc(v ssa.Value) *ssa.Function {
	switch x := v.(type) {
	case *ssa.Function:
		return x
	case *ssa.MakeClosure:
		fn, _ := x.Fn.(*ssa.Function)
		return fn
	case *ssa.Call:
		if callee := x.Call.StaticCallee(); callee != nil && len(callee.Blocks) > 0 {
			if ret := singleReturn(callee); ret != nil {
				switch r := ret.(type) {
				case *ssa.Function:
					return r
				case *ssa.MakeClosure:
					fn, _ := r.Fn.(*ssa.Function)
					return fn
				}
			}
		}
	}
	return nil
}

// singleReturn returns the result of a function with one result and one
// return statement, or nil.
func singleReturn(fn *ssa.Function) ssa.Value {
	if fn.Signature.Results().Len() != 1 {
		return nil
	}
	var ret ssa.Value
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(r.Results) == 1 {
			if ret != nil {
				return nil
			}
			ret = r.Results[0]
		}
	}
	return ret
}
