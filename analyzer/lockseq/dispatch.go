package lockseq

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/analyzer/sqlsite"
)

// maxImpls bounds the implementations a call through an interface is
// resolved to: past it the call is too dynamic to say which one runs.
const maxImpls = 4

// dispatch applies a call through an interface (store.Claim(ctx, id) on a
// Store interface) as a call of each implementation the analysis can see:
// the concrete types of this package and of the packages it imports. With
// one implementation, the usual shape (a Store interface and its Postgres
// implementation), the call is that method's call; with several, each is
// a possible path and their effects are joined.
func (fa *fnAnalysis) dispatch(site ssa.Instruction, c *ssa.CallCommon, st *state) {
	if sqlsite.KindOf(c.Value.Type()) != sqlsite.NotHandle {
		return // a database handle's own method, modelled or not
	}
	impls := fa.a.implementations(fa.fn.Prog, c.Value.Type(), c.Method)
	if len(impls) == 0 || len(impls) > maxImpls {
		return
	}
	args := append([]ssa.Value{c.Value}, c.Args...)
	var out *state
	for i, callee := range impls {
		sum := fa.a.summaryOf(callee)
		if sum.Empty() {
			if out == nil {
				out = st.clone()
			} else {
				out.join(st)
			}
			continue
		}
		s := st.clone()
		scope := ""
		if len(impls) > 1 {
			scope = fmt.Sprintf("#impl%d", i)
		}
		n := numParams(callee)
		bind := func(j int, path []string) (Handle, bool) {
			return fa.bindArg(args, nil, n, j, path)
		}
		fa.apply(site, scope, sum, calleeValues(args, nil, n), bind, s)
		if out == nil {
			out = s
		} else {
			out.join(s)
		}
	}
	if out != nil {
		*st = *out
	}
}

// implementations lists the methods that a call of method m on a value of
// interface type iface may run: those of the named types, declared in the
// program's packages, that implement the interface.
func (a *Analysis) implementations(prog *ssa.Program, iface types.Type, m *types.Func) []*ssa.Function {
	key := iface.String() + "." + m.Name()
	if fns, ok := a.impls[key]; ok {
		return fns
	}
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var out []*ssa.Function
	for _, pkg := range prog.AllPackages() {
		if sqlsite.IsDriverPackage(pkg.Pkg.Path()) {
			continue
		}
		for _, mem := range pkg.Members {
			t, ok := mem.(*ssa.Type)
			if !ok {
				continue
			}
			named, ok := t.Type().(*types.Named)
			if !ok || types.IsInterface(named) || named.TypeParams().Len() > 0 {
				continue
			}
			var recv types.Type
			switch {
			case types.Implements(named, it):
				recv = named
			case types.Implements(types.NewPointer(named), it):
				recv = types.NewPointer(named)
			default:
				continue
			}
			sel := prog.MethodSets.MethodSet(recv).Lookup(m.Pkg(), m.Name())
			if sel == nil {
				continue
			}
			// The declared method, not the wrapper a pointer receiver
			// of a value method would get: its summary is the one
			// analysed here or imported as a fact.
			if obj, ok := sel.Obj().(*types.Func); ok {
				if fn := prog.FuncValue(obj); fn != nil {
					out = append(out, fn)
				}
			}
		}
	}
	if a.impls == nil {
		a.impls = map[string][]*ssa.Function{}
	}
	a.impls[key] = out
	return out
}
