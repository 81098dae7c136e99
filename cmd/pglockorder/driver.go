package main

import (
	"fmt"
	"go/types"
	"io"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer/lockseq"
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
// roots), passing facts from each package to its importers in memory. Only
// the roots that can reach a database API are type-checked from source and
// analysed, their syntax and type information dropped once analysed; the
// others, like every package outside the roots, are seen through export
// data: facts about them are simply absent, as for any package outside the
// run.
//
// Up to GOMAXPROCS packages are analysed at once, each as soon as the
// packages it imports are done. The units come back in the order of a
// depth-first walk of the imports from the roots, whatever the schedule, so
// that the output is the same as a sequential run's.
func analyze(a *analysis.Analyzer, roots []*packages.Package) []*unit {
	units, _ := analyzeTimed(a, roots, runtime.GOMAXPROCS(0))
	return units
}

// stats are the times of analyze's phases, summed over the packages (and
// so over the workers: with several, their sum can exceed the wall time).
type stats struct {
	parse, analysis time.Duration
}

// analyzeTimed is analyze with at most workers packages at once, returning
// the times it spent type-checking and analysing.
func analyzeTimed(a *analysis.Analyzer, roots []*packages.Package, workers int) ([]*unit, stats) {
	tuneGC()
	c := newChecker(roots)
	// The packages to analyse, in the order of a sequential run: each
	// after the source packages it imports.
	var order []*packages.Package
	index := map[*packages.Package]int{}
	deps := map[*packages.Package][]*packages.Package{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if _, ok := index[p]; ok {
			return
		}
		index[p] = -1
		deps[p] = sourceDeps(c, p)
		for _, d := range deps[p] {
			visit(d)
		}
		index[p] = len(order)
		order = append(order, p)
	}
	for _, p := range roots {
		if c.source(p) {
			visit(p)
		}
	}

	// waiting[i] counts the source imports of order[i] not yet done;
	// importers[i] lists the packages waiting for order[i].
	waiting := make([]int, len(order))
	importers := make([][]int, len(order))
	for i, p := range order {
		for _, d := range deps[p] {
			j := index[d]
			waiting[i]++
			importers[j] = append(importers[j], i)
		}
	}
	var (
		units = make([]*unit, len(order))
		facts = &factStore{m: map[factKey]analysis.Fact{}}
		mu    sync.Mutex
		st    stats
		ready = make(chan int, len(order))
		wg    sync.WaitGroup
	)
	for i := range order {
		if waiting[i] == 0 {
			ready <- i
		}
	}
	remaining := len(order)
	if remaining == 0 {
		return nil, st
	}
	workers = max(1, min(workers, len(order)))
	for range workers {
		wg.Go(func() {
			for i := range ready {
				p := order[i]
				start := time.Now()
				err := c.check(p)
				parsed := time.Now()
				var u *unit
				if err != nil {
					u = &unit{pkg: p, err: err}
				} else {
					u = runPass(a, p, facts)
					// The package's syntax and type information were
					// needed for its own analysis only: its importers
					// see its types.
					p.Syntax, p.TypesInfo = nil, nil
				}
				done := time.Now()
				mu.Lock()
				units[i] = u
				st.parse += parsed.Sub(start)
				st.analysis += done.Sub(parsed)
				for _, j := range importers[i] {
					if waiting[j]--; waiting[j] == 0 {
						ready <- j
					}
				}
				if remaining--; remaining == 0 {
					close(ready)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return units, st
}

// sourceDeps returns the analysed packages that p's type-checking reads:
// those it imports, directly or through packages seen through export data
// (whose export data names their types), sorted by path.
func sourceDeps(c *checker, p *packages.Package) []*packages.Package {
	var out []*packages.Package
	seen := map[*packages.Package]bool{p: true}
	var walk func(q *packages.Package)
	walk = func(q *packages.Package) {
		for _, imp := range sortedImports(q) {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if c.source(imp) {
				out = append(out, imp)
				continue
			}
			walk(imp)
		}
	}
	walk(p)
	slices.SortFunc(out, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	return out
}

// sortedImports returns p's imports ordered by import path: the order of a
// walk must not depend on map iteration.
func sortedImports(p *packages.Package) []*packages.Package {
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	out := make([]*packages.Package, len(paths))
	for i, path := range paths {
		out[i] = p.Imports[path]
	}
	return out
}

// factStore holds the facts of the analysed packages, shared by the
// workers: a package reads the facts of those it imports, done before it.
type factStore struct {
	mu sync.RWMutex
	m  map[factKey]analysis.Fact
}

func (s *factStore) get(k factKey) analysis.Fact {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[k]
}

func (s *factStore) set(k factKey, f analysis.Fact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = f
}

// all returns the object facts (objects true) or the package facts.
func (s *factStore) all(objects bool) []factEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []factEntry
	for k, f := range s.m {
		if (k.obj != nil) == objects {
			out = append(out, factEntry{k, f})
		}
	}
	return out
}

type factEntry struct {
	key  factKey
	fact analysis.Fact
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
func runPass(a *analysis.Analyzer, p *packages.Package, facts *factStore) (u *unit) {
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
			return copyFact(facts.get(factKey{obj: obj, t: reflect.TypeOf(ptr)}), ptr)
		},
		ImportPackageFact: func(pkg *types.Package, ptr analysis.Fact) bool {
			return copyFact(facts.get(factKey{pkg: pkg, t: reflect.TypeOf(ptr)}), ptr)
		},
		ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
			facts.set(factKey{obj: obj, t: reflect.TypeOf(fact)}, fact)
		},
		ExportPackageFact: func(fact analysis.Fact) {
			facts.set(factKey{pkg: p.Types, t: reflect.TypeOf(fact)}, fact)
		},
		AllObjectFacts: func() []analysis.ObjectFact {
			var out []analysis.ObjectFact
			for _, e := range facts.all(true) {
				out = append(out, analysis.ObjectFact{Object: e.key.obj, Fact: e.fact})
			}
			return out
		},
		AllPackageFacts: func() []analysis.PackageFact {
			var out []analysis.PackageFact
			for _, e := range facts.all(false) {
				out = append(out, analysis.PackageFact{Package: e.key.pkg, Fact: e.fact})
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

// limitWarnings renders the analysis bounds a package's functions reached
// as "file:line:col\tfunc: what".
func limitWarnings(p *packages.Package, limits []lockseq.Limit) []string {
	out := make([]string, 0, len(limits))
	for _, l := range limits {
		out = append(out, p.Fset.Position(l.Pos).String()+"\t"+l.String())
	}
	return out
}

// printWarnings prints each warning once (a package and its test variant
// share functions), sorted, with positions relative to the working
// directory.
func printWarnings(w io.Writer, warnings []string, rel func(string) string) {
	warnings = slices.Clone(warnings)
	slices.Sort(warnings)
	for _, s := range slices.Compact(warnings) {
		posn, what, _ := strings.Cut(s, "\t")
		fmt.Fprintf(w, "pglockorder: warning: %s: %s\n", rel(posn), what)
	}
}
