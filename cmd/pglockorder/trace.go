package main

import (
	"go/types"
	"reflect"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// readTrace records what one pass read of other packages' facts, with the
// answers it got, so that the pass need not run again while every answer
// stays the same: its result is a function of its own package and those
// answers. A group of packages that call each other's interfaces is
// analysed twice (schedule.go); in the second round only the packages
// whose reads changed run again. On openmeter a group of 117 packages,
// the 500,000 lines of ent's generated client among them, formed that
// way from interfaces such as Validate() that the others only share.
type readTrace struct {
	pkg *types.Package
	// objects and packages are the object and package facts read, by
	// key, nil where there was none.
	objects, packages map[factKey]analysis.Fact
	// listed is the answer to AllPackageFacts, by package, when the pass
	// asked for it. The analyzer uses the list only to look up methods
	// by name (analyzer.Result.Lookups): when the pass says what it
	// looked up, those lookups are compared instead of the whole list,
	// which grows with every package analysed.
	listed map[*types.Package]analysis.Fact
	asked  bool
	// everything is set when the pass asked for every object fact: any
	// change may matter.
	everything bool
}

func newReadTrace(pkg *types.Package) *readTrace {
	return &readTrace{pkg: pkg, objects: map[factKey]analysis.Fact{}, packages: map[factKey]analysis.Fact{}}
}

// object records the answer to ImportObjectFact. The package's own facts
// are its own output, not an input.
func (t *readTrace) object(k factKey, f analysis.Fact) {
	if k.obj.Pkg() != t.pkg {
		t.objects[k] = f
	}
}

// pkgFact records the answer to ImportPackageFact.
func (t *readTrace) pkgFact(k factKey, f analysis.Fact) {
	if k.pkg != t.pkg {
		t.packages[k] = f
	}
}

// list records the answer to AllPackageFacts.
func (t *readTrace) list(facts []analysis.PackageFact) {
	t.asked = true
	t.listed = listedFacts(t.pkg, facts)
}

func listedFacts(own *types.Package, facts []analysis.PackageFact) map[*types.Package]analysis.Fact {
	m := make(map[*types.Package]analysis.Fact, len(facts))
	for _, f := range facts {
		if f.Package != own {
			m[f.Package] = f.Fact
		}
	}
	return m
}

// unchanged reports whether every read would get the same answer now. The
// pass's result, if the analyzer's, says which methods it looked up.
func (t *readTrace) unchanged(facts *factStore, visible *visibleSet, result any) bool {
	if t == nil || t.everything {
		return false
	}
	for k, f := range t.objects {
		if !reflect.DeepEqual(facts.get(k), f) {
			return false
		}
	}
	for k, f := range t.packages {
		if !reflect.DeepEqual(facts.get(k), f) {
			return false
		}
	}
	if !t.asked {
		return true
	}
	now := visiblePackageFacts(facts, visible)
	res, ok := result.(*analyzer.Result)
	if !ok || res.Lookups == nil {
		return reflect.DeepEqual(listedFacts(t.pkg, now), t.listed)
	}
	lookup := methodsNow(facts, now, t.pkg)
	for name, found := range res.Lookups {
		if !slices.Equal(lookup(name), found) {
			return false
		}
	}
	return true
}

// methodsNow returns what the analyzer's lookup of a method name
// (analyzer.MethodsWithFacts) would find now, for package own, among the
// packages with the listed facts: how a recorded lookup is checked.
func methodsNow(facts *factStore, listed []analysis.PackageFact, own *types.Package) func(name string) []*types.Func {
	pkgs := analyzer.FactPackages(own, listed)
	hasSummary := func(fn *types.Func) bool {
		return facts.has(factKey{obj: fn, t: summaryFact})
	}
	return func(name string) []*types.Func {
		return analyzer.MethodsWithFacts(pkgs, own, name, hasSummary)
	}
}

// summaryFact is the type of the facts that methods' summaries are.
var summaryFact = reflect.TypeFor[*lockseq.Summary]()
