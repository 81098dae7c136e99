package sqlsite

import (
	"go/types"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// fieldTexts caches, per struct field (*types.Var), the constant texts the
// field's package stores into it: *fieldConsts.
var fieldTexts sync.Map

type fieldConsts struct {
	texts []string
	ok    bool
}

// maxFieldTexts bounds the constants one field may hold to be resolved.
const maxFieldTexts = 8

// structField resolves a string field of a struct of the analysed code
// (r.lockSQL, set to "SELECT ... FOR UPDATE" by the repository's
// constructor): every constant its package stores into the field, in a
// composite literal or an assignment. A field that is also assigned a
// value that is not constant, or that nothing assigns, is run-time text.
func (r *resolver) structField(x ssa.Value, field int) alts {
	st := structOfType(x.Type())
	if st == nil || field >= st.NumFields() {
		return unknown("a field of a struct")
	}
	fv := st.Field(field)
	why := "field " + fv.Name() + " of a struct"
	if !isString(fv.Type()) || fv.Pkg() == nil {
		return unknown(why)
	}
	fn := x.Parent()
	if fn == nil || fn.Prog == nil {
		return unknown(why)
	}
	pkg := fn.Prog.Package(fv.Pkg())
	if pkg == nil {
		return unknown(why)
	}
	var fc *fieldConsts
	if c, ok := fieldTexts.Load(fv); ok {
		fc = c.(*fieldConsts)
	} else {
		fc = scanFieldStores(pkg, fv)
		fieldTexts.Store(fv, fc)
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
