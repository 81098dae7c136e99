package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/findings"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
)

// Exit codes.
const (
	exitClean    = 0
	exitError    = 1
	exitUsage    = 2
	exitFindings = 3
)

// finding is one report of the whole-program run.
type finding struct {
	Pkg      string `json:"-"`
	Posn     string `json:"posn"`
	Category string `json:"category,omitempty"`
	Message  string `json:"message"`
	// Related are the steps of the finding's paths, as go vet -json
	// prints a diagnostic's related information.
	Related []relatedInfo `json:"related,omitempty"`
	// cycle is the cycle the finding reports, when it is one (gate).
	cycle *lockgraph.Cycle
}

// relatedInfo is one related position of a finding.
type relatedInfo struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
}

// relatedInfos renders related positions with rel.
func relatedInfos(rs []report.Related, rel func(string) string) []relatedInfo {
	out := make([]relatedInfo, len(rs))
	for i, r := range rs {
		out[i] = relatedInfo{Posn: rel(r.Pos.String()), Message: r.Message}
	}
	return out
}

// driverFlags are the analyzer's flags that the command sets itself: the
// dialects the whole program links, and -config, which the gate registers
// with its own meaning of a relative path (gate.go).
var driverFlags = map[string]bool{"linked-dialects": true, "config": true}

// invocation is one run of the command: its options, then what each phase
// (parse, load, analyse, searchCycles, collect, report) produced for the
// next.
type invocation struct {
	stdout, stderr io.Writer

	// The command's own flags (parse).
	dir, tags, explain                         string
	jsonOut, tests, verbose, useCache, partial bool
	patterns                                   []string
	reproOut                                   reproFlag // -repro, -repro=DIR (repro.go)
	g                                          gate      // output formats, baseline, graphs (gate.go)
	rel                                        func(string) string

	// load: the packages, those left out, the declared orders.
	start  time.Time
	ph     *phases
	cfg    *packages.Config
	all    []*packages.Package // every package go list returned
	pkgs   []*packages.Package // those that loaded
	left   []leftOut
	orders []*analyzer.DeclaredOrder
	loaded time.Duration

	// analyse: the results, from the cache or the analysis.
	results   *cachedResults
	hit       bool
	cache     resultCache
	key, env  string // the whole run's cache key, and what every key shares
	cacheable bool
	// split says the packages were listed without export data, which
	// the analysis asks for when it needs it (exports.go); full makes a
	// run that started again load everything with it; exportsRead
	// counts the packages whose export data the analysis read, and
	// exportsListed those of them a second go list gave.
	split, full                bool
	splitKey                   string // the whole-run key of the split load
	exportsRead, exportsListed int
	failed                     bool           // a package could not be analysed
	sites                      []lockseq.Site // for -explain
	analysed                   time.Duration

	// searchCycles: the lock-order graph and its cycles, and whether they
	// came from the cycle cache.
	edges        []*lockgraph.Edge
	graph        *lockgraph.Graph
	cycles       []*lockgraph.Cycle
	cyclesReused bool

	// writes are the cache entries being written in the background,
	// waited for before the run ends.
	writes sync.WaitGroup
}

// run runs the command with args and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	inv := &invocation{stdout: stdout, stderr: stderr}
	if code, ok := inv.parse(args); !ok {
		return code
	}
	if code, ok := inv.load(); !ok {
		return code
	}
	defer inv.writes.Wait() // cache entries are written while the run goes on
	if !inv.analyse() {
		// The packages, listed without export data, must be loaded
		// with it (exports.go): the run starts again.
		inv.results, inv.sites, inv.left, inv.failed, inv.hit = nil, nil, nil, false, false
		if code, ok := inv.load(); !ok {
			return code
		}
		inv.analyse()
	}
	inv.searchCycles()
	return inv.report(inv.collect())
}

// fail prints an error of the run and returns code, for "return
// inv.fail(...)".
func (inv *invocation) fail(code int, err error) (int, bool) {
	fmt.Fprintf(inv.stderr, "pglockorder: %v\n", err)
	return code, false
}

// parse reads the command line. ok is false when the run ends here, with
// code.
func (inv *invocation) parse(args []string) (code int, ok bool) {
	fs := flag.NewFlagSet("pglockorder", flag.ContinueOnError)
	fs.SetOutput(inv.stderr)
	fs.StringVar(&inv.dir, "C", "", "change to `dir` before loading packages")
	fs.BoolVar(&inv.jsonOut, "json", false, "print findings as JSON, in the shape of go vet -json")
	fs.BoolVar(&inv.tests, "test", true, "also analyse test files")
	fs.BoolVar(&inv.verbose, "v", false, "print what was loaded and how long each phase took")
	fs.StringVar(&inv.tags, "tags", "", "comma-separated build `tags` to load the packages with")
	fs.BoolVar(&inv.useCache, "cache", true, "reuse the results of a previous run on unchanged code (PGLOCKORDER_CACHE=off or a directory)")
	fs.BoolVar(&inv.partial, "partial", false, "accept a partial analysis: packages that do not load or type-check are left out and reported, and the exit status is 0 when the rest has no findings")
	showVer := fs.Bool("version", false, "print pglockorder's version and exit")
	fs.StringVar(&inv.explain, "explain", "", "explain the deadlocks of a server log, driver error or pg_locks query output in `file` (- for standard input) with the code (explain.go)")
	// The analyzer's own flags (-maxcycle, -disable, -schema, -sinks, ...)
	// are registered from Analyzer.Flags, so that every driver spells and
	// checks them the same way; those only a driver sets are left out.
	analyzer.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		if !driverFlags[f.Name] {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	fs.Var(&inv.reproOut, "repro", reproUsage)
	inv.g.register(fs)
	fs.Usage = func() {
		fmt.Fprint(inv.stderr, `pglockorder: report PostgreSQL lock-order inversions that can deadlock

Usage:
	pglockorder [flags] [packages]          whole-program analysis (default ./...)
	go vet -vettool=$(which pglockorder) [packages]   per-package analysis

Exit status: 0 no findings, 3 findings reported, 1 packages left out of the analysis
(they do not load or type-check; 0 with -partial), 2 usage error or a file the
command line names (or .pglockorder.yaml) is missing or malformed.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitClean, false
		}
		return exitUsage, false
	}
	if *showVer {
		fmt.Fprintf(inv.stdout, "pglockorder %s\n", version())
		return exitClean, false
	}
	inv.patterns = fs.Args()
	if len(inv.patterns) == 0 {
		inv.patterns = []string{"./..."}
	}
	if err := checkDir(inv.dir); err != nil {
		return inv.fail(exitUsage, err)
	}
	if err := inv.g.check(inv.jsonOut, inv.stdout); err != nil {
		return inv.fail(exitUsage, err)
	}
	if err := inv.reproOut.check(&inv.g); err != nil {
		return inv.fail(exitUsage, err)
	}
	if err := analyzer.CheckSettings(); err != nil {
		return inv.fail(exitUsage, err)
	}
	if code, ok := checkExplain(inv.explain, inv.reproOut.on, &inv.g, inv.stderr); !ok {
		return code, false
	}
	inv.rel = relativizer(inv.dir)
	return 0, true
}

// load lists and loads the packages, checks the modules' configuration,
// and sets the settings the command derives from the program (the schema
// of its migrations, the dialects its binaries link).
func (inv *invocation) load() (code int, ok bool) {
	if inv.ph == nil { // a run that loads again keeps its clock
		inv.start = time.Now()
		inv.ph = newPhases()
	}
	inv.cfg = &packages.Config{Mode: loadMode, Tests: inv.tests, Dir: inv.dir}
	if inv.tags != "" {
		inv.cfg.BuildFlags = []string{"-tags=" + inv.tags}
	}
	// The packages an earlier run found the patterns to import, named in
	// the first go list (cache.go).
	inv.cache = openCache(inv.useCache && inv.explain == "") // the cache keeps no SQL sites
	// With the cache, the packages are listed without compiling them,
	// and export data asked for only when the analysis needs it
	// (exports.go).
	inv.split = inv.cache.dir != "" && !inv.full
	if inv.split {
		inv.cfg.Mode = listMode
	}
	known := inv.cache.knownExtras(inv.cfg, inv.patterns)
	pkgs, extras, err := loadWith(inv.cfg, inv.patterns, known)
	if err == nil && inv.split && anyErrors(pkgs) {
		// What go list reports of a package that does not load, a
		// compiled one's errors included, as it reports it.
		inv.split = false
		inv.cfg.Mode = loadMode
		pkgs, extras, err = loadWith(inv.cfg, inv.patterns, known)
	}
	if err == nil && inv.split {
		withoutCgo(pkgs)
	}
	if err == nil && !slices.Equal(extras, known) {
		inv.cache.keepExtras(inv.cfg, inv.patterns, extras)
	}
	if err != nil {
		return inv.fail(exitError, err)
	}
	if len(pkgs) == 0 {
		if msg := goListError(inv.cfg, inv.patterns); msg != "" {
			fmt.Fprintf(inv.stderr, "pglockorder: go list %s:\n%s\n", strings.Join(inv.patterns, " "), msg)
		} else {
			fmt.Fprintf(inv.stderr, "pglockorder: no packages match %s\n", strings.Join(inv.patterns, " "))
		}
		return exitError, false
	}
	if inv.orders, err = checkConfigs(pkgs); err != nil {
		return inv.fail(exitUsage, err)
	}
	if errs := patternErrors(pkgs); len(errs) > 0 {
		// A pattern that names no package is a mistake on the command
		// line, which -partial does not accept.
		for _, e := range errs {
			fmt.Fprintf(inv.stderr, "pglockorder: %s\n", e)
		}
		return exitError, false
	}
	// A package that does not load costs itself and its importers only.
	inv.all = pkgs
	inv.pkgs, inv.left = partition(pkgs)
	inv.failed = len(inv.left) > 0
	if len(inv.pkgs) == 0 {
		printLeftOut(inv.stderr, inv.left, 0, true)
		fmt.Fprintln(inv.stderr, "pglockorder: no package could be analysed")
		return exitError, false
	}
	// Without -schema, the migrations the module keeps (schema.go).
	if analyzer.Analyzer.Flags.Lookup("schema").Value.String() == "" {
		v, err := autoSchema(inv.pkgs)
		if err == nil {
			err = analyzer.Analyzer.Flags.Set("schema", v)
		}
		if err != nil {
			return inv.fail(exitError, err)
		}
	}
	// The dialect of packages whose binaries link only other databases'
	// drivers (dialect.go); part of the cache key, as a flag.
	if err := analyzer.Analyzer.Flags.Set("linked-dialects", linkedDialects(inv.pkgs)); err != nil {
		return inv.fail(exitError, err)
	}
	inv.loaded = time.Since(inv.start)
	inv.ph.mark("load")
	return 0, true
}

// analyse gets every package's results: the whole run's from the cache,
// or each package's from the per-package cache or the facts pass.
//
// It returns false when the packages, listed without export data, must be
// loaded again with it (exports.go).
func (inv *invocation) analyse() bool {
	var ids *identities
	if inv.cache.dir != "" {
		var err error
		if ids, err = newIdentities(inv.pkgs); err != nil && inv.verbose {
			fmt.Fprintf(inv.stderr, "pglockorder: not cached: %v\n", err)
		}
	}
	inv.key, inv.env, inv.cacheable = inv.cache.key(inv.pkgs, ids, inv.cfg, inv.patterns)
	switch {
	case inv.split:
		inv.splitKey = inv.key
	case inv.splitKey != "" && inv.cacheable:
		// A run that loads again with export data stores its results
		// under the key of the split load, which the next run on the
		// same tree computes: a package that makes every run load
		// again (one that uses cgo lists other imports with export
		// data) costs that only once.
		inv.key = inv.splitKey
	}
	if inv.cacheable {
		inv.results, inv.hit = inv.cache.load(inv.key, inv.g.graph != "" || inv.g.suggestOrder)
	}
	inv.ph.mark("cache")
	if !inv.hit {
		reach := reachabilityOf(inv.pkgs)
		if inv.split {
			if ids == nil {
				return inv.loadAgain(errors.New("no identities"))
			}
			var err error
			inv.exportsRead, inv.exportsListed, err = exportData(inv.cfg, inv.cache, inv.patterns, inv.pkgs, reach, ids)
			if err != nil {
				return inv.loadAgain(err)
			}
			inv.ph.mark("export data")
		}
		inv.results = &cachedResults{}
		var pc *pkgCache
		if inv.cacheable {
			pc = newPkgCache(inv.cache, inv.env, ids, analyzer.Facts)
		}
		units, st := analyzeTimed(analyzer.Facts, inv.pkgs, reach, workers(), pc)
		if st.lateReads > 0 {
			// A package's facts were dropped before a pass that read
			// them: the result may lack what they say. A bug.
			fmt.Fprintf(inv.stderr, "pglockorder: internal error: %d reads of facts dropped as no pass would read them again; please report it\n", st.lateReads)
		}
		inv.writes.Go(pc.wait)
		inv.ph.analysed(st, workers())
		inv.results.ImplDeps, inv.results.ImplGroups, inv.results.ImplReused = st.implDeps, st.cycles, st.reused
		unitErrs := map[*packages.Package]error{}
		for _, u := range units {
			if u.err != nil && inv.split && !errors.Is(u.err, errInternal) {
				// Reported as a run that compiles every package
				// reports it.
				return inv.loadAgain(fmt.Errorf("%s: %w", u.pkg.ID, u.err))
			}
			if u.err != nil {
				if errors.Is(u.err, errInternal) {
					// The stack is for a bug report; the summary
					// names the package with its first line.
					fmt.Fprintf(inv.stderr, "pglockorder: %s: %v\n", u.pkg.PkgPath, u.err)
				}
				unitErrs[u.pkg] = u.err
				inv.failed = true
				continue
			}
			part := u.part()
			inv.sites = append(inv.sites, part.Sites...)
			inv.results.add(part)
		}
		// The analysis is over: its syntax and types go (the units are
		// no longer used) before the restored edges are decoded, so
		// that the run does not hold both at once.
		// Every package's, not only the roots': the analysed packages
		// they import, and the packages read from export data, whose
		// types the export data of a big program's dependencies makes
		// a fifth of the heap left at this point (hatchet, after an
		// edit).
		// The file set goes too: the names of the files that the
		// export data describes are substrings of that data, so the
		// file set kept every package's export data alive, though
		// its types were gone (on hatchet, after an edit, 23 of the
		// 40 MB left); the parts hold positions as text.
		packages.Visit(inv.pkgs, nil, func(p *packages.Package) {
			p.Fset, p.Syntax, p.Types, p.TypesInfo = nil, nil, nil, nil
		})
		analyzer.ForgetTypes()
		// Collect now, so that the edges are decoded into the memory the
		// analysis leaves, not on top of it: the collector would wait
		// for the heap to double the live data of the analysis before
		// its next cycle, and decoding the edges reached that first.
		runtime.GC()
		if err := inv.results.unpackEdges(); err != nil {
			fmt.Fprintf(inv.stderr, "pglockorder: %v\n", err)
			inv.failed = true
		}
		// A function's statement on a transaction its caller lends
		// it is reported where the transaction is begun, in whatever
		// package that is (lockseq.RowFinding.Lent).
		// One statement reported from several packages is one finding.
		inv.results.Findings = findings.FoldStatements(findings.WithdrawLent(inv.results.Findings, inv.results.lent))
		// So is a lock-order edge drawn on such a transaction: each
		// caller drew it again with what it holds first.
		inv.results.Edges = lockgraph.WithoutLent(inv.results.Edges, inv.results.lent)
		inv.results.SQL = countSQL(inv.sites, inv.results.Skipped)
		inv.left = append(inv.left, unitsLeftOut(unitErrs)...)
	}
	printWarnings(inv.stderr, inv.results.Warnings, inv.rel)
	inv.analysed = time.Since(inv.start) - inv.loaded
	inv.ph.mark("analysis")
	return true
}

// loadAgain notes why the split load must be replaced by a load of every
// package with export data, and returns false for analyse.
func (inv *invocation) loadAgain(why error) bool {
	if analyzer.Debug() {
		fmt.Fprintf(inv.stderr, "pglockorder: loading again with export data: %v\n", why)
	}
	inv.full = true
	return false
}

// searchCycles builds the lock-order graph of every package's edges and
// finds its cycles, or takes them from the cache, and stores a new run's
// results there.
func (inv *invocation) searchCycles() {
	temps := map[string]bool{}
	for _, t := range inv.results.Temps {
		temps[t] = true
	}
	inv.edges = lockgraph.WithoutTables(inv.results.Edges, temps)
	if !inv.hit {
		inv.edges = withoutCopies(inv.edges)
	}
	inv.graph = lockgraph.New(inv.edges)
	inv.ph.mark("graph")
	if inv.hit {
		inv.cycles, inv.graph.Truncated = inv.results.Cycles, inv.results.Truncated
		if len(inv.edges) > 0 {
			relink(inv.graph, inv.cycles)
		}
	} else {
		inv.cycles, inv.cyclesReused = searchOrReuseCycles(inv.cache, inv.env, inv.cacheable, inv.graph, inv.stderr, inv.verbose)
		// The edges the graph keeps, and those it leaves out because
		// their request never waits: all that a run on the same code
		// needs of them (lockgraph.Dedupe keeps one edge per key, and a
		// key says whether the request waits).
		kept := slices.Concat(inv.graph.Edges(), lockgraph.Dedupe(notWaiting(inv.edges)))
		if inv.verbose || inv.cacheable {
			inv.results.EdgeCount = len(kept)
			inv.results.Graph = countGraph(inv.graph, inv.cycles)
		}
		if inv.cacheable && !inv.failed {
			inv.results.Edges = kept
			inv.results.Cycles, inv.results.Truncated = inv.cycles, inv.graph.Truncated
			// Written while the report is made; waited for at the end.
			inv.writes.Go(func() {
				if err := inv.cache.store(inv.key, inv.results); err != nil && inv.verbose {
					fmt.Fprintf(inv.stderr, "pglockorder: %v\n", err)
				}
			})
		}
	}
	inv.ph.mark("cycles")
	if inv.graph.Truncated {
		fmt.Fprintf(inv.stderr, "pglockorder: the cycle search stopped early (the graph has too many paths of length %d); longer cycles may be missing: lower -maxcycle\n", analyzer.Policy().MaxCycle)
	}
}

// collect returns every finding of the program, before the directives and
// -disable: the findings of each package alone, and the cycles and
// row-order mismatches over the whole program, with the rules of every
// driver (package findings).
func (inv *invocation) collect() []findings.Finding {
	opts := findings.Options{Rel: inv.rel}
	return slices.Concat(inv.results.Findings, findings.Cycles(inv.cycles, opts), findings.Mismatches(inv.results.Ordered, opts))
}

// report applies the directives, -disable and the baseline to the
// findings and prints them (or explains a log with them), with what -v,
// -debug and -repro ask for, and returns the exit status.
func (inv *invocation) report(found []findings.Finding) int {
	stderr, rel := inv.stderr, inv.rel
	if inv.explain != "" {
		return runExplain(inv.stdout, stderr, inv.explain, inv.g.format, explainProgram(inv.sites, inv.edges, toFindings(found, rel), rel), inv.failed)
	}
	reported := toFindings(analyzer.Policy().Enabled(findings.Suppress(found, inv.results.Ignores, nil)), rel)
	if len(inv.left) == 0 {
		// With packages left out, a name may be locked where the
		// analysis could not look.
		warnUnlockedNames(stderr, inv.orders, inv.results.Locked, rel)
	}
	inv.g.info = runInfo{version: version(), leftOut: inv.left}
	reported, code, done := inv.g.apply(inv.stdout, stderr, reported, inv.graph, inv.cycles, rel, inv.failed && !inv.partial)
	if done {
		return code
	}
	if inv.verbose {
		inv.printSummary()
	}
	if analyzer.Debug() {
		printUnfollowed(stderr, inv.results.Dispatch, rel)
	}
	if err := inv.g.write(inv.stdout, reported); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitError
	}
	if inv.reproOut.on {
		// The reproducers of the cycles still reported (not suppressed,
		// not in the baseline, not disabled).
		var still []*lockgraph.Cycle
		for _, f := range reported {
			if f.cycle != nil {
				still = append(still, f.cycle)
			}
		}
		if err := inv.reproOut.write(inv.stdout, stderr, still, rel); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return exitError
		}
	}
	if inv.verbose {
		inv.ph.mark("report")
		inv.ph.print(stderr)
	}
	printSkipped(stderr, inv.results.Skipped, analyzer.Debug(), rel)
	printLeftOut(stderr, inv.left, analysedCount(inv.pkgs, inv.left), inv.partial || len(reported) > 0)
	return exitStatus(len(reported), len(inv.left), inv.partial)
}

// printSummary prints -v's account of the run: what was loaded, analysed
// and found, and how.
func (inv *invocation) printSummary() {
	stderr, results := inv.stderr, inv.results
	how := "analysed in"
	if inv.hit {
		how = "results from the cache in"
	}
	fmt.Fprintf(stderr, "pglockorder %s: %d packages loaded in %v, %s %v; %d lock-order edges, %d cycles\n",
		version(), len(inv.all), inv.loaded.Round(time.Millisecond), how, inv.analysed.Round(time.Millisecond), results.EdgeCount, len(inv.cycles))
	switch {
	case inv.split && !inv.hit:
		fmt.Fprintf(stderr, "pglockorder: export data of %d packages not analysed, %d of them from an earlier run's record, %d from go list\n",
			inv.exportsRead, inv.exportsRead-inv.exportsListed, inv.exportsListed)
	case !inv.split && inv.useCache && inv.explain == "":
		fmt.Fprintln(stderr, "pglockorder: every package compiled for its export data (a package did not load or type-check without it)")
	}
	for _, src := range schemaSources() {
		fmt.Fprintf(stderr, "pglockorder: schema: %s\n", src)
	}
	// SQL of other dialects, skipped (analyzer/dialect.go).
	fmt.Fprint(stderr, prefixLines("pglockorder: ", results.Dialects.String()))
	fmt.Fprintf(stderr, "pglockorder: %s\n", results.SQL)
	fmt.Fprintf(stderr, "pglockorder: %s\n", results.Graph)
	printDispatch(stderr, results.Dispatch, results.ImplDeps, results.ImplGroups, results.ImplReused)
	if inv.cyclesReused {
		fmt.Fprintf(stderr, "pglockorder: cycles: those an earlier run found in the same %d edges\n", len(inv.graph.Edges()))
	}
}

// exitStatus is the run's exit status: findings decide first (a CI gate
// fails on them whatever else happened); without findings, packages left
// out of the analysis fail the run unless -partial accepts that.
func exitStatus(findings, leftOut int, partial bool) int {
	switch {
	case findings > 0:
		return exitFindings
	case leftOut > 0 && !partial:
		return exitError
	}
	return exitClean
}

// toFindings renders the findings for the output formats, positions
// relative to the working directory (rel), without repeats, sorted.
func toFindings(fs []findings.Finding, rel func(string) string) []finding {
	out := make([]finding, len(fs))
	for i, f := range fs {
		out[i] = finding{Pkg: f.Pkg, Posn: rel(f.Pos.String()), Category: f.Category, Message: f.Message,
			Related: relatedInfos(f.Related, rel), cycle: f.Cycle}
	}
	return dedupe(out)
}

// dedupe drops findings reported twice (a package and its test variant
// share files) and sorts them by position.
func dedupe(fs []finding) []finding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := f.Posn + "\x00" + f.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return posnLess(out[i].Posn, out[j].Posn) })
	return out
}

// printJSON prints findings as go vet -json does: by package, then by
// analyzer.
func printJSON(w io.Writer, fs []finding) error {
	tree := map[string]map[string][]finding{}
	for _, f := range fs {
		pkg := strings.TrimSuffix(f.Pkg, ".test")
		if tree[pkg] == nil {
			tree[pkg] = map[string][]finding{}
		}
		tree[pkg][analyzer.Analyzer.Name] = append(tree[pkg][analyzer.Analyzer.Name], f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	if err := enc.Encode(tree); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// relativizer returns a function that shows positions relative to the
// working directory (or to dir, when -C is given) when they are inside it.
func relativizer(dir string) func(string) string {
	base, err := os.Getwd()
	if err != nil {
		return func(s string) string { return s }
	}
	switch {
	case filepath.IsAbs(dir):
		base = dir
	case dir != "":
		base = filepath.Join(base, dir)
	}
	return func(pos string) string {
		if !filepath.IsAbs(pos) {
			return pos
		}
		if r, err := filepath.Rel(base, pos); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return pos
	}
}

// posnLess orders "file:line:col" positions by file, then by line and
// column as numbers (file.go:33 before file.go:113).
func posnLess(a, b string) bool {
	fa, la, ca := splitPosn(a)
	fb, lb, cb := splitPosn(b)
	switch {
	case fa != fb:
		return fa < fb
	case la != lb:
		return la < lb
	}
	return ca < cb
}

// notWaiting returns the edges whose request never waits, which the graph
// leaves out.
func notWaiting(edges []*lockgraph.Edge) []*lockgraph.Edge {
	var out []*lockgraph.Edge
	for _, e := range edges {
		if !e.Wanted.Waits {
			out = append(out, e)
		}
	}
	return out
}

// searchOrReuseCycles returns the cycles of the graph: those the cycle cache
// (cycles.go) keeps for its edges when caching is on, else a new search's,
// which it then keeps; reused says which.
func searchOrReuseCycles(cache resultCache, env string, cacheable bool, graph *lockgraph.Graph, stderr io.Writer, verbose bool) (cycles []*lockgraph.Cycle, reused bool) {
	maxLen := analyzer.Policy().MaxCycle
	key, ok := "", false
	if cacheable {
		key, ok = cycleKey(env, graph, maxLen)
	}
	if ok {
		if cycles, truncated, hit := cache.loadCycles(key, graph); hit {
			graph.Truncated = truncated
			return cycles, true
		}
	}
	cycles = graph.Cycles(maxLen)
	if ok {
		if err := cache.storeCycles(key, graph, cycles); err != nil && verbose {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		}
	}
	return cycles, false
}
