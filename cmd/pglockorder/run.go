package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/analyzer/lockgraph"
	"github.com/pglockorder/pglockorder/analyzer/lockseq"
	"github.com/pglockorder/pglockorder/analyzer/report"
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
	// cycle is the cycle the finding reports, when it is one (gate).
	cycle *lockgraph.Cycle
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pglockorder", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dir      = fs.String("C", "", "change to `dir` before loading packages")
		jsonOut  = fs.Bool("json", false, "print findings as JSON, in the shape of go vet -json")
		tests    = fs.Bool("test", true, "also analyse test files")
		verbose  = fs.Bool("v", false, "print what was loaded and how long each phase took")
		maxCycle = fs.Int("maxcycle", 4, "longest cycle of locks to look for")
		debug    = fs.Bool("debug", false, "print why SQL was skipped")
		tags     = fs.String("tags", "", "comma-separated build `tags` to load the packages with")
		disable  = fs.String("disable", "", "comma-separated `categories` of findings not to report (e.g. unordered-row-lock)")
		useCache = fs.Bool("cache", true, "reuse the results of a previous run on unchanged code (PGLOCKORDER_CACHE=off or a directory)")
		reproOut = fs.Bool("repro", false, reproUsage)
		schema   = fs.String("schema", "", "`path` of a .sql file or directory of migrations: adds the locks of foreign keys and key updates")
		// User-declared rules (analyzer/userrules.go).
		sinks     = fs.String("sinks", "", "comma-separated `import/path.Func:N` (or import/path.Type.Method:N): calls that run the SQL text of argument N on their receiver")
		txrunners = fs.String("txrunners", "", "comma-separated `import/path.Func:N` (or import/path.Type.Method:N): calls that run the callback in argument N inside a transaction they open")
	)
	var g gate // output formats, baseline, graphs (gate.go)
	g.register(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `pglockorder: report PostgreSQL lock-order inversions that can deadlock

Usage:
	pglockorder [flags] [packages]          whole-program analysis (default ./...)
	go vet -vettool=$(which pglockorder) [packages]   per-package analysis

Exit status: 0 no findings, 3 findings reported, 1 load or analysis error, 2 usage error.

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
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	if err := g.check(*jsonOut, stdout); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitUsage
	}
	if *reproOut && (*jsonOut || g.format != "text") {
		fmt.Fprintln(stderr, "pglockorder: -repro prints shell scripts: it cannot be combined with -json or -format")
		return exitUsage
	}
	if *maxCycle < 2 || *maxCycle > 12 {
		fmt.Fprintln(stderr, "pglockorder: -maxcycle must be between 2 and 12")
		return exitUsage
	}
	for name, val := range map[string]string{
		"wholeprogram": "true",
		"maxcycle":     strconv.Itoa(*maxCycle),
		"debug":        strconv.FormatBool(*debug),
		"disable":      *disable,
		"schema":       *schema,
		"sinks":        *sinks,
		"txrunners":    *txrunners,
	} {
		if err := analyzer.Analyzer.Flags.Set(name, val); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return exitError
		}
	}
	if err := analyzer.CheckSettings(); err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
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
	if n := printErrors(stderr, pkgs); n > 0 {
		fmt.Fprintf(stderr, "pglockorder: %d error(s) loading packages; pglockorder analyses only packages that load and type-check\n", n)
		return exitError
	}
	if len(pkgs) == 0 {
		fmt.Fprintf(stderr, "pglockorder: no packages match %s\n", strings.Join(patterns, " "))
		return exitError
	}
	loaded := time.Since(start)
	ph.mark("load")

	var (
		edges    []*lockgraph.Edge
		ordered  []lockseq.OrderedLock
		temps    = map[string]bool{}
		findings []finding
		failed   bool
	)
	rel := relativizer(*dir)
	cache := openCache(*useCache)
	key, cacheable := cache.key(pkgs, cfg, patterns)
	results, hit := (*cachedResults)(nil), false
	if cacheable {
		results, hit = cache.load(key, g.graph != "" || g.suggestOrder)
	}
	ph.mark("cache")
	if !hit {
		results = &cachedResults{}
		units, st := analyzeTimed(analyzer.Analyzer, pkgs, workers())
		ph.analysed(st, workers())
		for _, u := range units {
			if u.err != nil {
				fmt.Fprintf(stderr, "pglockorder: %s: %v\n", u.pkg.PkgPath, u.err)
				failed = true
				continue
			}
			if res, ok := u.result.(*analyzer.Result); ok {
				results.Edges = append(results.Edges, res.Edges...)
				results.Ordered = append(results.Ordered, res.Ordered...)
				results.Temps = append(results.Temps, res.TempTables...)
				results.Ignores = append(results.Ignores, res.Ignores...)
				results.Warnings = append(results.Warnings, limitWarnings(u.pkg, res.Limits)...)
			}
			for _, d := range u.diagnostics {
				results.Findings = append(results.Findings, cachedFinding{
					Pkg:      u.pkg.PkgPath,
					Posn:     u.pkg.Fset.Position(d.Pos).String(),
					Category: d.Category,
					Message:  d.Message,
				})
			}
		}
	}
	edges = results.Edges
	ordered = results.Ordered
	for _, t := range results.Temps {
		temps[t] = true
	}
	g.ignores = append(g.ignores, results.Ignores...)
	printWarnings(stderr, results.Warnings, rel)
	for _, f := range results.Findings {
		findings = append(findings, finding{Pkg: f.Pkg, Posn: rel(f.Posn), Category: f.Category, Message: f.Message})
	}
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
		cycles = graph.Cycles(*maxCycle)
		if *verbose || cacheable {
			results.EdgeCount = len(lockgraph.Dedupe(edges))
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
		fmt.Fprintf(stderr, "pglockorder: the cycle search stopped early (the graph has too many paths of length %d); longer cycles may be missing: lower -maxcycle\n", *maxCycle)
	}
	for _, c := range cycles {
		if analyzer.MigrationsOnly(c) {
			continue
		}
		anchor := c.Anchor()
		findings = append(findings, finding{
			Pkg:      anchor.Pkg,
			Posn:     rel(anchor.Anchor()),
			Category: report.Category(c),
			Message:  report.Message(c, report.Options{Rel: rel}),
			cycle:    c,
		})
	}
	for _, m := range analyzer.OrderMismatches(ordered) {
		findings = append(findings, finding{
			Pkg:      m.This.Pkg,
			Posn:     rel(m.This.Pos),
			Category: report.CategoryOrderMismatch,
			Message:  report.MismatchMessage(m.This, m.Other, report.Options{Rel: rel}),
		})
	}
	findings = dedupe(findings)
	findings, code, done := g.apply(stdout, stderr, findings, graph, cycles, rel, failed)
	if done {
		return code
	}
	if *verbose {
		how := "analysed in"
		if hit {
			how = "results from the cache in"
		}
		fmt.Fprintf(stderr, "pglockorder: %d packages loaded in %v, %s %v; %d lock-order edges, %d cycles\n",
			len(pkgs), loaded.Round(time.Millisecond), how, analysed.Round(time.Millisecond), results.EdgeCount, len(cycles))
	}
	if err := g.write(stdout, findings); err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitError
	}
	if *reproOut {
		// The reproducers of the cycles still reported (not suppressed,
		// not in the baseline, not disabled).
		var reported []*lockgraph.Cycle
		for _, f := range findings {
			if f.cycle != nil {
				reported = append(reported, f.cycle)
			}
		}
		if err := printRepro(stdout, reported, rel); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return exitError
		}
	}
	if *verbose {
		ph.mark("report")
		ph.print(stderr)
	}
	switch {
	case failed:
		return exitError
	case len(findings) > 0:
		return exitFindings
	}
	return exitClean
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
