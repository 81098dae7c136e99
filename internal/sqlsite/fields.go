package sqlsite

import (
	"go/token"
	"go/types"
	"slices"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// fieldTexts caches, per struct field (*types.Var), the constant texts the
// field's package stores into it: *fieldConsts.
var fieldTexts sync.Map

type fieldConsts struct {
	texts []string
	ok    bool
	// fromParams is set when a function stores one of its parameters
	// into the field (a constructor's NewRepo(table string)), other when
	// it stores anything else that is not constant.
	fromParams, other bool
}

// maxFieldTexts bounds the constants one field may hold to be resolved.
const maxFieldTexts = 8

// structField resolves a string field of a struct of the analysed code
// (r.lockSQL, set to "SELECT ... FOR UPDATE" by the repository's
// constructor): every constant its package stores into the field, in a
// composite literal or an assignment. A field that is also assigned a
// value that is not constant, or that nothing assigns, is run-time text.
func (r *resolver) structField(x ssa.Value, field int) alts {
	fv, fc := stringFieldStores(x, field)
	if fv == nil {
		return unknown("a field of a struct")
	}
	why := "field " + fv.Name() + " of a struct"
	if fc == nil {
		return unknown(why)
	}
	if !fc.ok {
		return unknown(why + ", which is set at run time")
	}
	var out alts
	for _, t := range fc.texts {
		out.nodes = append(out.nodes, constNode(t))
	}
	return out
}

// stringFieldStores returns field i of the struct x holds or points to,
// and, for a string field of a package of the program, what that
// package's functions store into it (nil otherwise).
func stringFieldStores(x ssa.Value, field int) (*types.Var, *fieldConsts) {
	st := structOfType(x.Type())
	if st == nil || field >= st.NumFields() {
		return nil, nil
	}
	fv := st.Field(field)
	fn := x.Parent()
	if !isString(fv.Type()) || fv.Pkg() == nil || fn == nil || fn.Prog == nil {
		return fv, nil
	}
	pkg := fn.Prog.Package(fv.Pkg())
	if pkg == nil {
		return fv, nil
	}
	return fv, fieldStores(pkg, fv)
}

// fieldStores returns (once per field) what pkg's functions store into
// field fv.
func fieldStores(pkg *ssa.Package, fv *types.Var) *fieldConsts {
	if c, ok := fieldTexts.Load(fv); ok {
		return c.(*fieldConsts)
	}
	fc := scanFieldStores(pkg, fv)
	fieldTexts.Store(fv, fc)
	return fc
}

// boundPerValue reports whether the texts of field i of the struct x holds
// or points to depend on which struct it is: the package stores several
// constants into the field, or its constructors' parameters, and nothing
// else that is not constant.
func boundPerValue(x ssa.Value, field int) bool {
	_, fc := stringFieldStores(x, field)
	return fc != nil && !fc.other && (fc.fromParams || len(fc.texts) > 1)
}

// scanFieldStores lists the constants pkg's functions store into field fv.
func scanFieldStores(pkg *ssa.Package, fv *types.Var) *fieldConsts {
	fc := &fieldConsts{ok: true}
	seen := map[string]bool{}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok {
					continue
				}
				fa, ok := st.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				s := structOfType(fa.X.Type())
				if s == nil || fa.Field >= s.NumFields() || s.Field(fa.Field) != fv {
					continue
				}
				text, ok := constString(st.Val)
				if !ok {
					fc.ok = false
					if _, isParam := st.Val.(*ssa.Parameter); isParam {
						fc.fromParams = true
					} else {
						fc.other = true
					}
					continue
				}
				if !seen[text] {
					seen[text] = true
					fc.texts = append(fc.texts, text)
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	for _, fn := range packageFuncs(pkg) {
		visit(fn)
	}
	if len(fc.texts) == 0 || len(fc.texts) > maxFieldTexts {
		fc.ok = false
	}
	return fc
}

// packageFuncs returns the functions and methods declared in pkg.
func packageFuncs(pkg *ssa.Package) []*ssa.Function {
	var out []*ssa.Function
	for _, m := range pkg.Members {
		switch x := m.(type) {
		case *ssa.Function:
			out = append(out, x)
		case *ssa.Type:
			named, ok := x.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 || types.IsInterface(named) {
				continue // generic methods have no single function
			}
			for _, recv := range []types.Type{named, types.NewPointer(named)} {
				mset := pkg.Prog.MethodSets.MethodSet(recv)
				for sel := range mset.Methods() {
					if f := pkg.Prog.MethodValue(sel); f != nil && f.Pkg == pkg && f.Synthetic == "" {
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}

// fieldValue resolves field i of the struct that x holds or points to,
// by the struct's value where the code shows it: a package variable
// initialised with a composite literal (var customers = &Repo{table:
// "customers"}) or a constructor's result, a local composite literal, or a
// parameter of the function the text is resolved in, whose field the
// package sets to several constants: the text is then a template over that
// parameter's field that each call binds from what it passes (a
// repository's "UPDATE " + r.table + ..., bound from the receiver), not
// their union, which would run every table at every call. Any other struct
// falls back to every constant its package stores into the field
// (structField).
func (r *resolver) fieldValue(x ssa.Value, field, depth int) alts {
	if depth > maxDepth {
		return unknown("a field of a struct built too deep")
	}
	switch v := x.(type) {
	case *ssa.Global:
		return r.globalField(v, field, depth)
	case *ssa.Parameter, *ssa.FreeVar:
		if b, ok := r.env[v]; ok {
			outer := r.env
			r.env = b.env
			defer func() { r.env = outer }()
			return r.fieldValue(b.v, field, depth+1)
		}
		if fn := v.Parent(); fn != nil && fn == r.top {
			i := -1
			if p, ok := v.(*ssa.Parameter); ok {
				i = paramIndex(p)
			} else if j := slices.Index(fn.FreeVars, v.(*ssa.FreeVar)); j >= 0 {
				i = len(fn.Params) + j
			}
			// Only where the package stores several constants or
			// its constructors' parameters into the field: one
			// constant is the text wherever the field is read, and
			// a field set at run time stays run-time text where it
			// is read, counted there.
			if i >= 0 && boundPerValue(x, field) {
				return single(Node{Op: OpParam, Param: i, Field: field + 1})
			}
		}
	case *ssa.UnOp:
		if v.Op != token.MUL {
			break
		}
		switch y := v.X.(type) {
		case *ssa.Global:
			if _, isPtr := v.Type().Underlying().(*types.Pointer); !isPtr {
				return r.globalField(y, field, depth) // the struct variable's value
			}
			if stored := globalStores(y); len(stored) > 0 {
				// In the initialiser's terms: the function's
				// parameters mean nothing there.
				top := r.top
				r.top = nil
				var out alts
				for _, v := range stored {
					out = union(out, r.fieldValue(v, field, depth+1))
				}
				r.top = top
				return out
			}
		case *ssa.Alloc:
			if vals := literalField(v, field); len(vals) > 0 {
				return r.valuesUnion(vals, depth)
			}
		}
	case *ssa.Alloc:
		if vals := allocField(v, field); len(vals) > 0 {
			return r.valuesUnion(vals, depth)
		}
	case *ssa.Call:
		// A constructor of the package that returns one composite
		// literal (NewRepo[Customer]() returning &Repo[T]{table:
		// zero.TableName()}): the values its literal holds, in the
		// constructor's terms (an instance's, for a generic one).
		if a, fn := constructed(v); a != nil && r.calls < maxCalls {
			if vals := allocField(a, field); len(vals) > 0 {
				// The constructor's parameters are the call's
				// arguments (NewRepo("customers")).
				env := map[ssa.Value]bound{}
				for i, p := range fn.Params {
					if i < len(v.Call.Args) {
						env[p] = bound{v.Call.Args[i], r.env}
					}
				}
				outer := r.env
				r.env = env
				r.calls++
				out := r.valuesUnion(vals, depth)
				r.calls--
				r.env = outer
				if !out.unknown {
					return out
				}
			}
		}
	}
	return r.structField(x, field)
}

// constructed returns the composite literal that the function c calls
// returns on its one return (return &T{...}), and that function, or nil.
func constructed(c *ssa.Call) (*ssa.Alloc, *ssa.Function) {
	fn := c.Call.StaticCallee()
	if fn == nil || len(fn.Blocks) == 0 {
		return nil, nil
	}
	a, _ := singleReturn(fn).(*ssa.Alloc)
	return a, fn
}

// valuesUnion resolves each of vals and joins their alternatives.
func (r *resolver) valuesUnion(vals []ssa.Value, depth int) alts {
	var out alts
	for _, v := range vals {
		out = union(out, r.value(v, depth+1))
	}
	return out
}

// globalStores returns the values the package's initialiser stores into a
// pointer variable (var customers = &Repo{table: "customers"}, or =
// NewRepo[Customer]()).
func globalStores(g *ssa.Global) []ssa.Value {
	init := g.Pkg.Func("init")
	if init == nil {
		return nil
	}
	var out []ssa.Value
	for _, fn := range initFuncs(g.Pkg, init) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if st, ok := instr.(*ssa.Store); ok && st.Addr == g {
					out = append(out, st.Val)
				}
			}
		}
	}
	return out
}

// allocField returns the values stored into field i of the struct a local
// allocation holds (&T{f: v}).
func allocField(a *ssa.Alloc, field int) []ssa.Value {
	refs := a.Referrers()
	if refs == nil {
		return nil
	}
	var out []ssa.Value
	for _, ref := range *refs {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok || fa.X != a || fa.Field != field {
			continue
		}
		for _, r2 := range *fa.Referrers() {
			if st, ok := r2.(*ssa.Store); ok && st.Addr == fa {
				out = append(out, st.Val)
			}
		}
	}
	return out
}
