package main

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockseq"
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
	pkgs, _, err := loadWith(cfg, patterns, nil)
	return pkgs, err
}

// loadWith is load, told the packages of the main modules that an earlier
// run on the same patterns added (known), and returning those this one
// added. Finding them takes a go list of the patterns alone, then another
// with them added: a second `go list -deps -export` of the whole program,
// a second or more of a run that changed nothing. With known, the first
// go list names them at once, and its result is kept when the patterns'
// packages import exactly those: what the second go list would have
// loaded.
func loadWith(cfg *packages.Config, patterns, known []string) (pkgs []*packages.Package, extras []string, err error) {
	if len(known) > 0 {
		pkgs, err = packages.Load(cfg, slices.Concat(patterns, known)...)
		if err != nil {
			return nil, nil, fmt.Errorf("loading packages: %w", err)
		}
		knownSet := map[string]bool{}
		for _, k := range known {
			knownSet[k] = true
		}
		var named []*packages.Package // the roots the patterns match
		for _, p := range pkgs {
			if !knownSet[underTest(p)] {
				named = append(named, p)
			}
		}
		if slices.Equal(sameModuleImports(named), known) {
			return withoutForeignTests(pkgs), known, nil
		}
	}
	pkgs, err = packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("loading packages: %w", err)
	}
	extras = sameModuleImports(pkgs)
	if len(extras) == 0 {
		return pkgs, nil, nil
	}
	pkgs, err = packages.Load(cfg, slices.Concat(patterns, extras)...)
	if err != nil {
		return nil, nil, fmt.Errorf("loading packages: %w", err)
	}
	return withoutForeignTests(pkgs), extras, nil
}

// withoutForeignTests leaves out the test binaries of the packages of
// modules other than the main ones (a module replaced by a directory, whose
// packages load as extras): the project's tests are the main modules', and
// another module's tests may import what the main modules' build list
// lacks.
func withoutForeignTests(pkgs []*packages.Package) []*packages.Package {
	foreign := map[string]bool{}
	for _, p := range pkgs {
		if p.Module != nil && !p.Module.Main && testBinary(p) == "" && !synthesized(p) {
			foreign[p.PkgPath] = true
		}
	}
	if len(foreign) == 0 {
		return pkgs
	}
	return slices.DeleteFunc(pkgs, func(p *packages.Package) bool {
		return (testBinary(p) != "" || synthesized(p)) && foreign[underTest(p)]
	})
}

// sameModuleImports returns, sorted, the import paths of the packages of
// the main modules that roots import, directly or not, and that are not
// among them; and of the modules the main modules replace with a directory
// of their own (replace example.com/db => ./db), which are the project's
// code as much: a monorepo's data layer in a module of its own.
func sameModuleImports(roots []*packages.Package) []string {
	named := map[string]bool{}
	for _, p := range roots {
		named[p.PkgPath] = true
	}
	extra := map[string]bool{}
	packages.Visit(roots, nil, func(p *packages.Package) {
		if !named[p.PkgPath] && p.Module != nil && (p.Module.Main || localReplace(p.Module)) {
			extra[p.PkgPath] = true
		}
	})
	return slices.Sorted(maps.Keys(extra))
}

// localReplace reports whether m is replaced by a directory (a replacement
// without a version), rather than by another module version.
func localReplace(m *packages.Module) bool {
	return m.Replace != nil && m.Replace.Version == "" && m.Replace.Path != ""
}

// underTest returns the import path of the package that p is, or is part
// of the test binary of: "store" for "store", "store [store.test]",
// "store_test [store.test]" and "store.test".
func underTest(p *packages.Package) string {
	if tb := testBinary(p); tb != "" {
		return strings.TrimSuffix(tb, ".test")
	}
	if synthesized(p) {
		return strings.TrimSuffix(p.PkgPath, ".test")
	}
	return p.PkgPath
}

// unit is the outcome of analysing one package.
type unit struct {
	pkg         *packages.Package
	result      any
	diagnostics []analysis.Diagnostic
	err         error
	// reads is what the pass read of other packages' facts.
	reads *readTrace
	// restored is set, instead of result and diagnostics, when the
	// per-package cache gave the package's part of the results
	// (pkgcache.go); entry is the cache's entry, whose reads say whether
	// a second round must analyse the package again.
	restored *unitPart
	entry    *pkgEntry
	// made is the part of the results the analysis made (keepPart).
	made *unitPart
}

// factKey identifies an object fact; a nil object stands for the package.
type factKey struct {
	obj types.Object
	pkg *types.Package
	t   reflect.Type
}

// owner returns the package whose fact k names.
func (k factKey) owner() *types.Package {
	if k.obj != nil {
		return k.obj.Pkg()
	}
	return k.pkg
}

// analyze runs analyzer a over the packages named on the command line (the
// roots), passing facts from each package to its importers in memory. Only
// the roots that can reach a database API are type-checked from source and
// analysed, their syntax and type information dropped once analysed; the
// others, like every package outside the roots, are seen through export
// data: facts about them are simply absent, as for any package outside the
// run.
//
// A package is analysed after the packages it imports and after those that
// implement the interfaces it calls (schedule.go): a service that calls a
// Store interface sees the Postgres implementation that main wires in. Up
// to GOMAXPROCS packages are type-checked, then analysed, at once, each as
// soon as those it depends on are done. The units come back in the order of
// a depth-first walk of the imports from the roots, whatever the schedule,
// so that the output is the same as a sequential run's.
func analyze(a *analysis.Analyzer, roots []*packages.Package) []*unit {
	units, _ := analyzeTimed(a, roots, nil, runtime.GOMAXPROCS(0), nil)
	return units
}

// stats are the times of analyze's phases, summed over the packages (and
// so over the workers: with several, their sum can exceed the wall time).
type stats struct {
	parse, analysis time.Duration
	// implDeps counts the packages analysed after a package they do not
	// import because it implements an interface they call; cycles the
	// strongly connected groups of packages that depend on each other
	// that way, analysed twice.
	implDeps int
	cycles   [][]string
	// reused counts the second-round passes of such groups that read
	// what they read in the first and were not run again.
	reused int
	// restored counts the packages whose results and facts the
	// per-package cache gave; restoring is the time spent looking them
	// up, decoding and checking them, hits and misses.
	restored  int
	restoring time.Duration
	// declOnly counts the packages type-checked without their bodies,
	// planned as restored; starts the starts of the run (declonly.go).
	declOnly, starts int
	// slowest are the packages whose analysis took longest, slowest
	// first (at most slowestKept), so that -v names where time goes.
	slowest []pkgTime
	// factsLeft counts the facts still stored when the analysis ended,
	// and lateReads the reads of a fact of a package whose facts were
	// dropped as no pass would read them again: both 0 unless that
	// reckoning (readersOf) is wrong.
	factsLeft, lateReads int
}

// pkgTime is the time one package's analysis took.
type pkgTime struct {
	path string
	took time.Duration
}

// slowestKept is how many of the slowest packages -v names.
const slowestKept = 5

// noteTime keeps took among the slowest packages' times.
func (st *stats) noteTime(path string, took time.Duration) {
	i, _ := slices.BinarySearchFunc(st.slowest, took, func(p pkgTime, t time.Duration) int { return -cmp.Compare(p.took, t) })
	if i >= slowestKept {
		return
	}
	st.slowest = slices.Insert(st.slowest, i, pkgTime{path, took})
	if len(st.slowest) > slowestKept {
		st.slowest = st.slowest[:slowestKept]
	}
}

// analyzeTimed is analyze with at most workers packages at once, returning
// the times it spent type-checking and analysing. With a per-package cache
// (pc not nil), a pass whose package's inputs and reads are those of a pass
// of an earlier run takes that pass's results and facts instead of being
// made.
//
// With the cache, the packages it will restore are type-checked without
// their function bodies (declonly.go); when one of them must be analysed
// after all, the run starts again, planned with what the start that
// stopped learnt.
func analyzeTimed(a *analysis.Analyzer, roots []*packages.Package, reach reachability, workers int, pc *pkgCache) ([]*unit, stats) {
	if reach == nil {
		reach = reachabilityOf(roots)
	}
	tuneGC()
	again := map[string]bool{}
	var spent stats // the times of the starts that stopped
	for attempt := 0; ; attempt++ {
		units, st, replan := analyzeStart(a, roots, reach, workers, pc, attempt, again)
		if len(replan) == 0 {
			st.parse += spent.parse
			st.analysis += spent.analysis
			st.restoring += spent.restoring
			st.starts = attempt + 1
			return units, st
		}
		spent.parse += st.parse
		spent.analysis += st.analysis
		spent.restoring += st.restoring
		for _, p := range replan {
			again[p.ID] = true
			if analyzer.Debug() {
				fmt.Fprintf(os.Stderr, "pglockorder: per-package cache: %s planned as restored, must be analysed: starting again\n", p.ID)
			}
		}
		for _, p := range roots {
			p.Syntax, p.Types, p.TypesInfo = nil, nil, nil
		}
	}
}

// analyzeStart is one start of analyzeTimed's run, planned by makePlan; it
// stops, returning the packages planned as restored that must be analysed,
// when there are such.
func analyzeStart(a *analysis.Analyzer, roots []*packages.Package, reach reachability, workers int, pc *pkgCache, attempt int, again map[string]bool) (units []*unit, st stats, replan []*packages.Package) {
	c := newChecker(roots, reach)
	// The packages to analyse, in the order of a sequential run: each
	// after the source packages it imports.
	var order []*packages.Package
	index := map[*packages.Package]int{}
	imports := map[int][]int{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if _, ok := index[p]; ok {
			return
		}
		index[p] = -1
		deps := sourceDeps(c, p)
		for _, d := range deps {
			visit(d)
		}
		i := len(order)
		index[p] = i
		order = append(order, p)
		for _, d := range deps {
			imports[i] = append(imports[i], index[d])
		}
	}
	for _, p := range roots {
		if c.source(p) {
			visit(p)
		}
	}
	if len(order) == 0 {
		return nil, st, nil
	}
	pl := makePlan(pc, order, c.source, attempt, again)
	c.declOnly = pl.declOnly
	st.declOnly = len(pl.declOnly)
	if pc != nil {
		pc.analysed = map[string]bool{}
		pc.analysedPkgs = map[*packages.Package]bool{}
		for _, p := range order {
			pc.analysed[p.PkgPath] = true
			pc.analysedPkgs[p] = true
		}
		pc.markRelevant(order)
	}
	workers = max(1, min(workers, len(order)))

	// A first pass plans the run: which packages implement the interfaces
	// a package calls is known only from their types, so every package is
	// type-checked, each after its imports, and its calls through
	// interfaces noted; its syntax and type records are dropped at once.
	// Its types, too, are dropped once the plan is made, except those of
	// the packages that will be restored and import none that will not
	// (kept): the second pass type-checks each package again when its
	// turn comes, so that no more than a few packages' syntax and type
	// records, most of a run's memory, are alive at once.
	failed := make([]error, len(order))
	calls := make([][]ifaceCall, len(order))
	var mu sync.Mutex
	c.planning, c.planFset = true, token.NewFileSet()
	runDAG(len(order), func(i int) []int { return imports[i] }, workers, func(i int) {
		p := order[i]
		start := time.Now()
		err := c.check(p)
		var cs []ifaceCall
		if err == nil && !pl.declOnly[p] {
			key := pl.keys[p]
			var refs []callRef
			cs, refs = calledInterfaces(p, key != "")
			if refs != nil {
				pc.storeCalls(key, refs)
			}
			p.Syntax, p.TypesInfo = nil, nil
		}
		mu.Lock()
		failed[i], calls[i] = err, cs
		st.parse += time.Since(start)
		mu.Unlock()
	})

	// The interfaces that the packages planned as restored call, as kept
	// when they were type-checked in full.
	for i, p := range order {
		switch {
		case failed[i] != nil && pl.declOnly[p]:
			// Not expected (its entry was made by a pass), but its
			// errors are those of a check of its bodies too.
			replan = append(replan, p)
		case failed[i] == nil && pl.declOnly[p]:
			cs, ok := c.resolveCalls(p, pl.calls[p])
			if !ok {
				replan = append(replan, p)
			}
			calls[i] = cs
		}
	}
	if len(replan) > 0 {
		return nil, st, replan
	}

	// Then analyse them, each after its imports and the implementations
	// it calls; packages that depend on each other that way form a group,
	// analysed in import order twice, so that each sees the others'
	// summaries.
	impls := implDeps(order, failed, calls)
	calls = nil
	deps := func(i int) []int {
		return append(slices.Clone(imports[i]), impls[i]...)
	}
	for i := range order {
		st.implDeps += len(impls[i])
	}
	groups, groupDeps := condense(len(order), deps)

	// The planning pass's types go, but for the kept packages': no cache
	// of the analyzer may hold them (the handle kinds of the receivers of
	// the calls through interfaces are cached by type).
	analyzer.ForgetTypes()
	kept := make([]bool, len(order))
	keptPkgs := map[*packages.Package]bool{}
	for i, p := range order { // imports come first
		kept[i] = pl.declOnly[p] && failed[i] == nil && !slices.ContainsFunc(imports[i], func(j int) bool { return !kept[j] })
		if kept[i] {
			keptPkgs[p] = true
		}
	}
	c.forget(func(p *packages.Package) bool { return keptPkgs[p] })
	c.planning, c.planFset = false, nil
	idx := newTypeIndex(order)
	for i := range order {
		if kept[i] {
			idx.add(i)
		}
	}
	if pc != nil {
		pc.byPath = map[string][]*packages.Package{}
		for _, p := range order {
			pc.byPath[p.PkgPath] = append(pc.byPath[p.PkgPath], p)
		}
	}
	visible := visibility(idx, groups, groupDeps)
	var (
		facts   = &factStore{m: map[factKey]analysis.Fact{}}
		stopped atomic.Bool // a package planned as restored must be analysed
		readers = readersOf(len(order), visible)
	)
	units = make([]*unit, len(order))
	if pc != nil {
		// A pass per package, and its kept interface calls.
		pc.passes = 2 * len(order)
	}
	for _, g := range groups {
		if len(g) > 1 && pc != nil {
			pc.passes += len(g)
		}
		if len(g) > 1 {
			var ids []string
			for _, i := range g {
				ids = append(ids, order[i].ID)
			}
			st.cycles = append(st.cycles, ids)
		}
	}
	runDAG(len(groups), func(g int) []int { return groupDeps[g] }, workers, func(g int) {
		if stopped.Load() {
			return
		}
		members := groups[g]
		rounds := 1
		if len(members) > 1 {
			rounds = 2
		}
		// The second pass's type-check, in import order: what a
		// member imports is done, in an earlier group or before it in
		// this one.
		for _, i := range members {
			if failed[i] != nil || kept[i] {
				continue
			}
			start := time.Now()
			err := c.check(order[i])
			if err == nil {
				idx.add(i)
			}
			mu.Lock()
			failed[i] = err
			st.parse += time.Since(start)
			mu.Unlock()
		}
		// Each pass is restored from the per-package cache when an
		// earlier run made the same pass (same package inputs, same
		// round) and everything it read still gets the same answer:
		// its result is a function of those, so a run that restores some
		// passes and makes the others prints what a run that makes all
		// of them prints. A group's members are restored one by one, a
		// member edited or reading an edited member's changed facts
		// analysed again, the others not.
		keys := make([]string, len(members))
		for j, i := range members {
			if failed[i] == nil {
				keys[j] = pl.keys[order[i]]
			}
		}
		for round := range rounds {
			for j, i := range members {
				p := order[i]
				start := time.Now()
				if failed[i] != nil {
					mu.Lock()
					units[i] = &unit{pkg: p, err: failed[i]}
					mu.Unlock()
					continue
				}
				if round > 0 && units[i].err == nil && pc.unchanged(units[i], facts, visible[g]) {
					// It would read what it read in the first
					// round: its result and facts stand.
					mu.Lock()
					st.reused++
					mu.Unlock()
					continue
				}
				key := roundKey(keys[j], round, rounds)
				if u := pc.restorePass(key, p, round, rounds, facts, visible[g]); u != nil {
					mu.Lock()
					units[i] = u
					st.restoring += time.Since(start)
					mu.Unlock()
					continue
				}
				if pl.declOnly[p] {
					// Its bodies were not type-checked: the run
					// starts again with them.
					mu.Lock()
					replan = append(replan, p)
					mu.Unlock()
					stopped.Store(true)
					return
				}
				if round > 0 {
					facts.drop(p.Types) // replaced by this round's
				}
				u := runPass(a, p, facts, visible[g])
				u.keepPart()
				took := time.Since(start)
				if key != "" {
					pc.storeLater(key, u, facts)
				}
				mu.Lock()
				units[i] = u
				st.analysis += took
				st.noteTime(p.ID, took)
				mu.Unlock()
			}
		}
		mu.Lock()
		for _, i := range members {
			if units[i].restored != nil {
				st.restored++
			}
		}
		mu.Unlock()
		for _, i := range members {
			// The package's syntax and type information were needed
			// for its own analysis only: its importers see its types.
			order[i].Syntax, order[i].TypesInfo = nil, nil
			// What its passes read was needed to restore or keep
			// them, which is decided: a restored pass's entry reads
			// too.
			if units[i] != nil {
				units[i].reads, units[i].entry = nil, nil
			}
		}
		// The facts of a package whose last reader this group was go:
		// the summaries of the program's top functions, which nothing
		// reads, as soon as their package is done, and a query
		// package's once every package that sees it is.
		for i := range order {
			if visible[g].has(i) && readers[i].Add(-1) == 0 && order[i].Types != nil {
				facts.dropLast(order[i].Types)
			}
		}
	})
	if len(replan) > 0 {
		return nil, st, replan
	}
	st.factsLeft, st.lateReads = facts.count(), int(facts.lateReads.Load())
	return units, st, nil
}

// readersOf counts, for each package of the run, the groups whose passes
// may read its facts (visibility): its own group and every group that
// depends on it, directly or not. When the last of them is done, no pass
// will read its facts again.
func readersOf(n int, visible []*visibleSet) []atomic.Int32 {
	readers := make([]atomic.Int32, n)
	for _, v := range visible {
		for i := range n {
			if v.has(i) {
				readers[i].Add(1)
			}
		}
	}
	return readers
}

// runDAG runs do(i) for each of n tasks on at most workers goroutines, each
// task after the tasks deps(i) lists.
func runDAG(n int, deps func(int) []int, workers int, do func(int)) {
	if n == 0 {
		return
	}
	// waiting[i] counts the dependencies of i not yet done; dependents[j]
	// lists the tasks waiting for j.
	waiting := make([]int, n)
	dependents := make([][]int, n)
	for i := range n {
		for _, j := range deps(i) {
			waiting[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	var (
		mu        sync.Mutex
		ready     = make(chan int, n)
		wg        sync.WaitGroup
		remaining = n
	)
	for i := range n {
		if waiting[i] == 0 {
			ready <- i
		}
	}
	for range max(1, min(workers, n)) {
		wg.Go(func() {
			for i := range ready {
				do(i)
				mu.Lock()
				for _, j := range dependents[i] {
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
	// objects lists the object facts' keys by package, so that a pass
	// reads the facts of the packages it sees without scanning all;
	// pkgFacts lists the package facts' keys, so that listing them does
	// not scan the object facts (hundreds of thousands on a big program,
	// and listed for every package).
	objects  map[*types.Package][]factKey
	pkgFacts map[factKey]bool
	// lazy are the facts restored from the per-package cache and not
	// decoded yet (lazyfacts.go): most are never read.
	lazy map[factKey]lazyRef
	// dropped are the packages whose facts were dropped, and lateReads
	// counts the reads of their facts after that (stats.lateReads).
	dropped   map[*types.Package]bool
	lateReads atomic.Int64
	// digests are the digests of the values under their keys, where
	// known: those the per-package cache's entries kept for restored
	// facts, and those made when a pass's entry is prepared (pkgcache.go).
	// A digest goes with its value: set forgets it, drop too. Keyed by
	// fact key, not by value, so that a value dropped is not kept alive
	// by its digest.
	digests map[factKey]string
}

func (s *factStore) get(k factKey) analysis.Fact {
	s.mu.RLock()
	f, ok := s.m[k]
	lz, lazy := s.lazy[k]
	if !ok && !lazy && s.dropped[k.owner()] {
		s.lateReads.Add(1)
	}
	s.mu.RUnlock()
	if ok || !lazy {
		return f
	}
	return lz.value()
}

// has reports whether the store has a fact for k, without decoding it.
func (s *factStore) has(k factKey) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.m[k]
	_, lazy := s.lazy[k]
	return ok || lazy
}

func (s *factStore) set(k factKey, f analysis.Fact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index(k)
	delete(s.lazy, k)
	delete(s.digests, k)
	s.m[k] = f
}

// setDigested is set with the value's digest, known already.
func (s *factStore) setDigested(k factKey, f analysis.Fact, digest string) {
	s.set(k, f)
	if digest != "" {
		s.setDigest(k, f, digest)
	}
}

// knownDigest returns the digest of the value under k, if known.
func (s *factStore) knownDigest(k factKey) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.digests[k]
	return d, ok
}

// digestOf returns the digest of f, read under k, if known: f must still be
// the value there.
func (s *factStore) digestOf(k factKey, f analysis.Fact) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.digests[k]
	return d, ok && s.holdsLocked(k, f)
}

// setDigest records the digest of f, the value under k (if it still is).
func (s *factStore) setDigest(k factKey, f analysis.Fact, digest string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holdsLocked(k, f) {
		if s.digests == nil {
			s.digests = map[factKey]string{}
		}
		s.digests[k] = digest
	}
}

// holdsLocked reports whether f is the value under k: the one stored, or
// the one a pass read of a restored fact (lazyfacts.go); s.mu is held.
func (s *factStore) holdsLocked(k factKey, f analysis.Fact) bool {
	if v, ok := s.m[k]; ok {
		return v == f
	}
	if r, ok := s.lazy[k]; ok {
		return r.holds(f)
	}
	return false
}

// index lists a new key among its package's; s.mu is held.
func (s *factStore) index(k factKey) {
	_, ok := s.m[k]
	if _, lazy := s.lazy[k]; !ok && !lazy && k.obj != nil {
		if s.objects == nil {
			s.objects = map[*types.Package][]factKey{}
		}
		s.objects[k.obj.Pkg()] = append(s.objects[k.obj.Pkg()], k)
	}
	if k.obj == nil {
		if s.pkgFacts == nil {
			s.pkgFacts = map[factKey]bool{}
		}
		s.pkgFacts[k] = true
	}
}

// objectFacts returns the object facts of the packages visible lists.
func (s *factStore) objectFacts(visible []*types.Package) []analysis.ObjectFact {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []analysis.ObjectFact
	for _, pkg := range visible {
		for _, k := range s.objects[pkg] {
			if f := s.getLocked(k); f != nil {
				out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
			}
		}
	}
	return out
}

// getLocked is get with s.mu held for reading.
func (s *factStore) getLocked(k factKey) analysis.Fact {
	if f, ok := s.m[k]; ok {
		return f
	}
	if lz, ok := s.lazy[k]; ok {
		return lz.value()
	}
	return nil
}

// objectsOf returns the facts of a package's objects.
func (s *factStore) objectsOf(pkg *types.Package) []factEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []factEntry
	for _, k := range s.objects[pkg] {
		if f := s.getLocked(k); f != nil {
			out = append(out, factEntry{k, f})
		}
	}
	return out
}

// drop forgets the facts of a package and its objects.
func (s *factStore) drop(pkg *types.Package) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(pkg)
}

// dropLast forgets the facts of a package whose last reader is done.
func (s *factStore) dropLast(pkg *types.Package) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(pkg)
	if s.dropped == nil {
		s.dropped = map[*types.Package]bool{}
	}
	s.dropped[pkg] = true
}

// count returns the number of facts stored, decoded or not.
func (s *factStore) count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m) + len(s.lazy)
}

// dropLocked forgets the facts of a package and its objects, with their
// digests; s.mu is held.
func (s *factStore) dropLocked(pkg *types.Package) {
	for _, k := range s.objects[pkg] {
		delete(s.m, k)
		delete(s.lazy, k)
		delete(s.digests, k)
	}
	delete(s.objects, pkg)
	for k := range s.pkgFacts {
		if k.pkg == pkg {
			delete(s.m, k)
			delete(s.lazy, k)
			delete(s.digests, k)
			delete(s.pkgFacts, k)
		}
	}
}

// packageFacts returns the package facts.
func (s *factStore) packageFacts() []factEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]factEntry, 0, len(s.pkgFacts))
	for k := range s.pkgFacts {
		out = append(out, factEntry{k, s.getLocked(k)})
	}
	return out
}

type factEntry struct {
	key  factKey
	fact analysis.Fact
}

// tuneGC sets a soft memory limit of 1.5 GiB, under which the collector
// runs at Go's default pace (the heap grows to twice the live data). It
// used to let the heap grow to five times the live data, which saved CPU
// when the analysis was the run's bottleneck; once the run no longer
// compiled the analysed packages it cost much memory for little CPU: on
// hatchet a run with an empty cache took the same CPU (13.6 to 14 s against 14.1 to
// 15.9 s) and 0.95 to 1.06 GiB instead of 1.32 to 1.36 GiB; on the
// million-line corpus 15% more CPU and 0.9 GiB instead of 1.28 GiB.
// GOGC and GOMEMLIMIT, when set, are left alone.
func tuneGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1536 << 20)
	}
}

// runPass runs the analyzer on one package. A panic in the analyzer is
// turned into an error for that package: one bad package must not hide the
// findings of the others.
//
// The pass sees the facts of the packages in visible, those it was
// scheduled after: with packages analysed in parallel, any other package's
// facts may or may not be there yet, and the result must not depend on it.
func runPass(a *analysis.Analyzer, p *packages.Package, facts *factStore, visible *visibleSet) (u *unit) {
	u = &unit{pkg: p, reads: newReadTrace(p.Types)}
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
			k := factKey{obj: obj, t: reflect.TypeOf(ptr)}
			f := facts.get(k)
			u.reads.object(k, f)
			return copyFact(f, ptr)
		},
		ImportPackageFact: func(pkg *types.Package, ptr analysis.Fact) bool {
			k := factKey{pkg: pkg, t: reflect.TypeOf(ptr)}
			f := facts.get(k)
			u.reads.pkgFact(k, f)
			return copyFact(f, ptr)
		},
		ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
			facts.set(factKey{obj: obj, t: reflect.TypeOf(fact)}, fact)
		},
		ExportPackageFact: func(fact analysis.Fact) {
			facts.set(factKey{pkg: p.Types, t: reflect.TypeOf(fact)}, fact)
		},
		AllObjectFacts: func() []analysis.ObjectFact {
			u.reads.everything = true
			return facts.objectFacts(visible.packages())
		},
		AllPackageFacts: func() []analysis.PackageFact {
			out := visiblePackageFacts(facts, visible)
			u.reads.list(out)
			return out
		},
	}
	u.result, u.err = a.Run(pass)
	if res, ok := u.result.(*analyzer.Result); ok && res.Err != nil {
		// The facts pass keeps its error in its result, for the
		// reporters of the per-package drivers to print.
		u.result, u.err = nil, res.Err
	}
	return u
}

// copyFact copies a stored fact into ptr, which has the same pointer type.
// visiblePackageFacts lists the package facts of the packages a pass sees.
func visiblePackageFacts(facts *factStore, visible *visibleSet) []analysis.PackageFact {
	var out []analysis.PackageFact
	for _, e := range facts.packageFacts() {
		if visible.contains(e.key.pkg) {
			out = append(out, analysis.PackageFact{Package: e.key.pkg, Fact: e.fact})
		}
	}
	return out
}

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
