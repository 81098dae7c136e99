package analyzer

import (
	"go/types"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/analyzer/lockseq"
)

// factMethods returns the lister of methods with summaries that calls
// through interfaces are resolved against (lockseq.Env.Methods): the
// methods of other packages that the driver holds a summary fact for. go
// vet holds the facts of the package's dependencies; the pglockorder
// command those of every package analysed before this one, which its
// schedule makes include the implementations of the interfaces this
// package calls, wherever they are declared. The index is built on first
// use.
func factMethods(pass *analysis.Pass) func(name string) []*types.Func {
	var (
		once  sync.Once
		index map[string][]*types.Func
	)
	return func(name string) []*types.Func {
		once.Do(func() {
			index = map[string][]*types.Func{}
			for _, f := range pass.AllObjectFacts() {
				fn, ok := f.Object.(*types.Func)
				if !ok || fn.Pkg() == pass.Pkg || fn.Signature().Recv() == nil {
					continue
				}
				if _, ok := f.Fact.(*lockseq.Summary); ok {
					index[fn.Name()] = append(index[fn.Name()], fn)
				}
			}
		})
		return index[name]
	}
}

// invokesLocking reports whether the package calls an interface method
// that a method with a summary implements: a package that imports no
// database API can still run SQL through a port it declares, whose
// adapter main wires in.
func invokesLocking(pass *analysis.Pass, methods func(string) []*types.Func) bool {
	for _, sel := range pass.TypesInfo.Selections {
		if sel.Kind() != types.MethodVal {
			continue
		}
		it, ok := sel.Recv().Underlying().(*types.Interface)
		if !ok || !lockseq.OwnInterface(sel.Recv()) {
			continue // the standard library's interfaces hide no SQL
		}
		for _, m := range methods(sel.Obj().Name()) {
			if lockseq.Implements(m, it) {
				return true
			}
		}
	}
	return false
}
