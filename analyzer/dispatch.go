package analyzer

import (
	"go/types"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// factMethods returns the lister of methods with summaries that calls
// through interfaces are resolved against (lockseq.Env.Methods): the
// methods of other packages that the driver holds a summary fact for. go
// vet holds the facts of the package's dependencies; the pglockorder
// command those of every package analysed before this one, which its
// schedule makes include the implementations of the interfaces this
// package calls, wherever they are declared. Each name looked up is
// recorded in lookups with what it found.
//
// The candidates are found through the packages that export a package
// fact (every package with SQL does); scanning every object fact instead
// cost each package time in proportion to the whole program's functions:
// quadratic in the command.
func factMethods(pass *analysis.Pass, lookups map[string][]*types.Func) func(name string) []*types.Func {
	var (
		once sync.Once
		pkgs []*types.Package
	)
	return func(name string) []*types.Func {
		once.Do(func() { pkgs = FactPackages(pass.Pkg, pass.AllPackageFacts()) })
		if out, ok := lookups[name]; ok {
			return out
		}
		out := MethodsWithFacts(pkgs, pass.Pkg, name, func(fn *types.Func) bool {
			var s lockseq.Summary
			return pass.ImportObjectFact(fn, &s)
		})
		lookups[name] = out
		return out
	}
}

// FactPackages lists, sorted by path, the packages other than own with a
// RunsSQL fact among facts: those that may declare methods with summaries.
func FactPackages(own *types.Package, facts []analysis.PackageFact) []*types.Package {
	var pkgs []*types.Package
	for _, f := range facts {
		if _, ok := f.Fact.(*RunsSQL); ok && f.Package != own {
			pkgs = append(pkgs, f.Package)
		}
	}
	slices.SortFunc(pkgs, func(a, b *types.Package) int { return strings.Compare(a.Path(), b.Path()) })
	return pkgs
}

// MethodsWithFacts lists the methods named name, declared or promoted, of
// the named types of pkgs, other than own's, for which hasSummary holds,
// in a deterministic order. The candidates come from each package's index
// of named types by method name (lockseq.TypesWithMethod, built once per
// package for the whole run), so only methods of that name are looked up.
func MethodsWithFacts(pkgs []*types.Package, own *types.Package, name string, hasSummary func(*types.Func) bool) []*types.Func {
	var out []*types.Func
	seen := map[*types.Func]bool{}
	for _, pkg := range pkgs {
		for _, named := range lockseq.TypesWithMethod(pkg)[name] {
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(named), false, named.Obj().Pkg(), name)
			fn, ok := obj.(*types.Func)
			if !ok || seen[fn] || fn.Pkg() == own || fn.Signature().Recv() == nil {
				continue
			}
			seen[fn] = true
			if hasSummary(fn) {
				out = append(out, fn)
			}
		}
	}
	return out
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
