package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pglockorder", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dir      = fs.String("C", "", "change to `dir` before loading packages")
		jsonOut  = fs.Bool("json", false, "print findings as JSON, in the shape of go vet -json")
		tests    = fs.Bool("test", true, "also analyse test files")
		verbose  = fs.Bool("v", false, "print what was loaded and how long each phase took")
		tags     = fs.String("tags", "", "comma-separated build `tags` to load the packages with")
		useCache = fs.Bool("cache", true, "reuse the results of a previous run on unchanged code (PGLOCKORDER_CACHE=off or a directory)")
		partial  = fs.Bool("partial", false, "accept a partial analysis: packages that do not load or type-check are left out and reported, and the exit status is 0 when the rest has no findings")
		showVer  = fs.Bool("version", false, "print pglockorder's version and exit")
		explain  = fs.String("explain", "", "explain the deadlocks of a server log, driver error or pg_locks query output in `file` (- for standard input) with the code (explain.go)")
	)
	// The analyzer's own flags (-maxcycle, -disable, -schema, -sinks, ...)
	// are registered from Analyzer.Flags, so that every driver spells and
	// checks them the same way; those only a driver sets are left out.
	analyzer.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		if !driverFlags[f.Name] {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	var reproOut reproFlag // -repro, -repro=DIR (repro.go)
	fs.Var(&reproOut, "repro", reproUsage)
	var g gate // output formats, baseline, graphs (gate.go)
	g.register(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `pglockorder: report PostgreSQL lock-order inversions that can deadlock

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
			return exitClean
		}
		return exitUsage
	}
	if *showVer {
		fmt.Fprintf(stdout, "pglockorder %s\n", version())
		return exitClean
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	if err := checkDir(*dir); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitUsage
	}
	if err := g.check(*jsonOut, stdout); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitUsage
	}
	if err := reproOut.check(&g); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitUsage
	}
	if err := analyzer.CheckSettings(); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitUsage
	}

	if code, ok := checkExplain(*explain, reproOut.on, &g, stderr); !ok {
		return code
	}

	start := time.Now()
	ph := newPhases()
	cfg := &packages.Config{Mode: loadMode, Tests: *tests, Dir: *dir}
	if *tags != "" {
		cfg.BuildFlags = []string{"-tags=" + *tags}
	}
	pkgs, err := load(cfg, patterns)
	if err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitError
	}
	if len(pkgs) == 0 {
		if msg := goListError(cfg, patterns); msg != "" {
			fmt.Fprintf(stderr, "pglockorder: go list %s:\n%s\n", strings.Join(patterns, " "), msg)
		} else {
			fmt.Fprintf(stderr, "pglockorder: no packages match %s\n", strings.Join(patterns, " "))
		}
		return exitError
	}
	orders, err := checkConfigs(pkgs)
	if err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitUsage
	}
	if errs := patternErrors(pkgs); len(errs) > 0 {
		// A pattern that names no package is a mistake on the command
		// line, which -partial does not accept.
		for _, e := range errs {
			fmt.Fprintf(stderr, "pglockorder: %s\n", e)
		}
		return exitError
	}
	// A package that does not load costs itself and its importers only.
	all := pkgs
	pkgs, left := partition(pkgs)
	if len(pkgs) == 0 {
		printLeftOut(stderr, left, 0, true)
		fmt.Fprintln(stderr, "pglockorder: no package could be analysed")
		return exitError
	}
	// Without -schema, the migrations the module keeps (schema.go).
	if analyzer.Analyzer.Flags.Lookup("schema").Value.String() == "" {
		v, err := autoSchema(pkgs)
		if err == nil {
			err = analyzer.Analyzer.Flags.Set("schema", v)
		}
		if err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return exitError
		}
	}
	// The dialect of packages whose binaries link only other databases'
	// drivers (dialect.go); part of the cache key, as a flag.
	if err := analyzer.Analyzer.Flags.Set("linked-dialects", linkedDialects(pkgs)); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitError
	}
	loaded := time.Since(start)
	ph.mark("load")

	var (
		edges    []*lockgraph.Edge
		ordered  []lockseq.OrderedLock
		temps    = map[string]bool{}
		failed   = len(left) > 0
		unitErrs = map[*packages.Package]error{}
		sites    []lockseq.Site // for -explain
	)
	rel := relativizer(*dir)
	cache := openCache(*useCache && *explain == "") // the cache keeps no SQL sites
	key, env, cacheable := cache.key(pkgs, cfg, patterns)
	results, hit := (*cachedResults)(nil), false
	if cacheable {
		results, hit = cache.load(key, g.graph != "" || g.suggestOrder)
	}
	ph.mark("cache")
	if !hit {
		results = &cachedResults{}
		var pc *pkgCache
		if cacheable {
			pc = newPkgCache(cache, env, analyzer.Facts)
		}
		units, st := analyzeTimed(analyzer.Facts, pkgs, workers(), pc)
		defer pc.wait() // entries written while the graph is searched
		ph.analysed(st, workers())
		results.ImplDeps, results.ImplGroups, results.ImplReused = st.implDeps, st.cycles, st.reused
		for _, u := range units {
			if u.err != nil {
				if errors.Is(u.err, errInternal) {
					// The stack is for a bug report; the summary
					// names the package with its first line.
					fmt.Fprintf(stderr, "pglockorder: %s: %v\n", u.pkg.PkgPath, u.err)
				}
				unitErrs[u.pkg] = u.err
				failed = true
				continue
			}
			part := u.part()
			sites = append(sites, part.Sites...)
			results.add(part)
		}
		results.SQL = countSQL(sites, results.Skipped)
	}
	left = append(left, unitsLeftOut(unitErrs)...)
	edges = results.Edges
	ordered = results.Ordered
	for _, t := range results.Temps {
		temps[t] = true
	}
	printWarnings(stderr, results.Warnings, rel)
	analysed := time.Since(start) - loaded
	ph.mark("analysis")

	edges = lockgraph.WithoutTables(edges, temps)
	graph := lockgraph.New(edges)
	ph.mark("graph")
	var cycles []*lockgraph.Cycle
	if hit {
		cycles, graph.Truncated = results.Cycles, results.Truncated
		if len(edges) > 0 {
			relink(graph, cycles)
		}
	} else {
		cycles = graph.Cycles(analyzer.Policy().MaxCycle)
		if *verbose || cacheable {
			results.EdgeCount = len(lockgraph.Dedupe(edges))
			results.Graph = countGraph(graph, cycles)
		}
		if cacheable && !failed {
			results.Cycles, results.Truncated = cycles, graph.Truncated
			if err := cache.store(key, results); err != nil && *verbose {
				fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			}
		}
	}
	ph.mark("cycles")
	if graph.Truncated {
		fmt.Fprintf(stderr, "pglockorder: the cycle search stopped early (the graph has too many paths of length %d); longer cycles may be missing: lower -maxcycle\n", analyzer.Policy().MaxCycle)
	}
	// The rules of every driver (package findings): the findings of each
	// package alone, the cycles and row-order mismatches over the whole
	// program, then the directives and the categories turned off.
	opts := findings.Options{Rel: rel}
	found := slices.Concat(results.Findings, findings.Cycles(cycles, opts), findings.Mismatches(ordered, opts))
	if *explain != "" {
		return runExplain(stdout, stderr, *explain, g.format, explainProgram(sites, edges, toFindings(found, rel), rel), failed)
	}
	reported := toFindings(analyzer.Policy().Enabled(findings.Suppress(found, results.Ignores, nil)), rel)
	if len(left) == 0 {
		// With packages left out, a name may be locked where the
		// analysis could not look.
		warnUnlockedNames(stderr, orders, results.Locked, rel)
	}
	g.info = runInfo{version: version(), leftOut: left}
	reported, code, done := g.apply(stdout, stderr, reported, graph, cycles, rel, failed && !*partial)
	if done {
		return code
	}
	if *verbose {
		how := "analysed in"
		if hit {
			how = "results from the cache in"
		}
		fmt.Fprintf(stderr, "pglockorder %s: %d packages loaded in %v, %s %v; %d lock-order edges, %d cycles\n",
			version(), len(all), loaded.Round(time.Millisecond), how, analysed.Round(time.Millisecond), results.EdgeCount, len(cycles))
		for _, src := range schemaSources() {
			fmt.Fprintf(stderr, "pglockorder: schema: %s\n", src)
		}
		// SQL of other dialects, skipped (analyzer/dialect.go).
		fmt.Fprint(stderr, prefixLines("pglockorder: ", results.Dialects.String()))
		fmt.Fprintf(stderr, "pglockorder: %s\n", results.SQL)
		fmt.Fprintf(stderr, "pglockorder: %s\n", results.Graph)
		printDispatch(stderr, results.Dispatch, results.ImplDeps, results.ImplGroups, results.ImplReused)
	}
	if analyzer.Debug() {
		printUnfollowed(stderr, results.Dispatch, rel)
	}
	if err := g.write(stdout, reported); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitError
	}
	if reproOut.on {
		// The reproducers of the cycles still reported (not suppressed,
		// not in the baseline, not disabled).
		var still []*lockgraph.Cycle
		for _, f := range reported {
			if f.cycle != nil {
				still = append(still, f.cycle)
			}
		}
		if err := reproOut.write(stdout, stderr, still, rel); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return exitError
		}
	}
	if *verbose {
		ph.mark("report")
		ph.print(stderr)
	}
	printSkipped(stderr, results.Skipped, analyzer.Debug(), rel)
	printLeftOut(stderr, left, analysedCount(pkgs, left), *partial || len(reported) > 0)
	return exitStatus(len(reported), len(left), *partial)
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
