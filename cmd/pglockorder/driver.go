package main

import (
	"fmt"
	"go/types"
	"os"
	"reflect"
	"runtime/debug"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// loadMode lists the named packages and all their dependencies with the
// go command, which compiles them for their export data, but parses and
// type-checks nothing: the driver type-checks from source only the packages
// that can reach a database API, one at a time, and takes the types of all
// others from export data. Ordinary code, the standard library and the
// database drivers (which are modelled) then cost no parsing or
// type-checking, which is most of the time and memory of a whole-program
// run.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedDeps | packages.NeedExportFile | packages.NeedTypesSizes | packages.NeedModule | packages.NeedEmbedFiles

// load loads the packages matching patterns from source. Packages of the
// same module(s) that they import are loaded from source too, so that a
// helper in ./store is analysed when only ./service/... is named: its locks
// are part of the service's lock order.
func load(cfg *packages.Config, patterns []string) ([]*packages.Package, error) {
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	roots := map[string]bool{}
	for _, p := range pkgs {
		roots[p.PkgPath] = true
	}
	extra := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !roots[p.PkgPath] && p.Module != nil && p.Module.Main {
			extra[p.PkgPath] = true
		}
	})
	if len(extra) == 0 {
		return pkgs, nil
	}
	more := slices.Clone(patterns)
	for path := range extra {
		more = append(more, path)
	}
	slices.Sort(more[len(patterns):])
	pkgs, err = packages.Load(cfg, more...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	return pkgs, nil
}

// unit is the outcome of analysing one package.
type unit struct {
	pkg         *packages.Package
	result      any
	diagnostics []analysis.Diagnostic
	err         error
}

// factKey identifies an object fact; a nil object stands for the package.
type factKey struct {
	obj types.Object
	pkg *types.Package
	t   reflect.Type
}

// analyze runs analyzer a over the packages named on the command line (the
// roots), in dependency order, passing facts from each package to its
// importers in memory. Only the roots that can reach a database API are
// type-checked from source and analysed, one at a time, their syntax and
// type information dropped once analysed; the others, like every package
// outside the roots, are seen through export data: facts about them are
// simply absent, as for any package outside the run.
func analyze(a *analysis.Analyzer, roots []*packages.Package) []*unit {
	tuneGC()
	facts := map[factKey]analysis.Fact{}
	c := newChecker(roots)
	var units []*unit
	done := map[*packages.Package]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if done[p] {
			return
		}
		done[p] = true
		for _, imp := range p.Imports {
			if c.source(imp) {
				visit(imp)
			}
		}
		if !c.source(p) {
			return
		}
		if err := c.check(p); err != nil {
			units = append(units, &unit{pkg: p, err: err})
			return
		}
		units = append(units, runPass(a, p, facts))
		// The package's syntax and type information were needed for
		// its own analysis only: its importers see its types.
		p.Syntax, p.TypesInfo = nil, nil
	}
	for _, p := range roots {
		visit(p)
	}
	return units
}

// tuneGC lets the heap grow to five times the live data between
// collections instead of twice, under a soft limit of 1.5 GiB: the analysis
// allocates much short-lived data (syntax, SSA, lock states), and on the
// million-line corpus this cuts its CPU time by a third for 240 MiB more.
// GOGC and GOMEMLIMIT, when set, are left alone.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1536 << 20)
	}
}

// runPass runs the analyzer on one package. A panic in the analyzer is
// turned into an error for that package: one bad package must not hide the
// findings of the others.
func runPass(a *analysis.Analyzer, p *packages.Package, facts map[factKey]analysis.Fact) (u *unit) {
	u = &unit{pkg: p}
	defer func() {
		if r := recover(); r != nil {
			u.err = fmt.Errorf("%w analysing %s: %v\n%s", errInternal, p.PkgPath, r, debug.Stack())
		}
	}()
	pass := &analysis.Pass{
		Analyzer:   a,
		Fset:       p.Fset,
		Files:      p.Syntax,
		OtherFiles: p.OtherFiles,
		Pkg:        p.Types,
		TypesInfo:  p.TypesInfo,
		TypesSizes: p.TypesSizes,
		ResultOf:   map[*analysis.Analyzer]any{},
		Report:     func(d analysis.Diagnostic) { u.diagnostics = append(u.diagnostics, d) },
		ReadFile:   os.ReadFile,
		ImportObjectFact: func(obj types.Object, ptr analysis.Fact) bool {
			return copyFact(facts[factKey{obj: obj, t: reflect.TypeOf(ptr)}], ptr)
		},
		ImportPackageFact: func(pkg *types.Package, ptr analysis.Fact) bool {
			return copyFact(facts[factKey{pkg: pkg, t: reflect.TypeOf(ptr)}], ptr)
		},
		ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
			facts[factKey{obj: obj, t: reflect.TypeOf(fact)}] = fact
		},
		ExportPackageFact: func(fact analysis.Fact) {
			facts[factKey{pkg: p.Types, t: reflect.TypeOf(fact)}] = fact
		},
		AllObjectFacts: func() []analysis.ObjectFact {
			var out []analysis.ObjectFact
			for k, f := range facts {
				if k.obj != nil {
					out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
				}
			}
			return out
		},
		AllPackageFacts: func() []analysis.PackageFact {
			var out []analysis.PackageFact
			for k, f := range facts {
				if k.pkg != nil {
					out = append(out, analysis.PackageFact{Package: k.pkg, Fact: f})
				}
			}
			return out
		},
	}
	u.result, u.err = a.Run(pass)
	return u
}

// copyFact copies a stored fact into ptr, which has the same pointer type.
func copyFact(fact, ptr analysis.Fact) bool {
	if fact == nil {
		return false
	}
	reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(fact).Elem())
	return true
}
