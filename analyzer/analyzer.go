package analyzer

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// Analyzer reports PostgreSQL lock-order inversions that can deadlock.
var Analyzer = &analysis.Analyzer{
	Name:       "pglockorder",
	Doc:        doc,
	URL:        "https://github.com/pglockorder/pglockorder",
	Run:        run,
	FactTypes:  []analysis.Fact{new(lockseq.Summary), new(PackageInfo), new(StringsFact)},
	ResultType: reflect.TypeFor[*Result](),
}

// docSource is this package's doc.go: the analyzer's documentation is the
// section of its package comment headed "# Analyzer pglockorder", as the
// passes of golang.org/x/tools keep it, written once.
//
//go:embed doc.go
var docSource string

// doc is the analyzer's Doc, taken from docSource.
var doc = analyzerDoc(docSource, "pglockorder")

// Settings of the analyzer, set through its flags.
var (
	maxCycle  = 4
	deferred  bool
	debugMode bool
	// withRelated is the related flag: attach path steps as
	// Diagnostic.Related.
	withRelated = true
	disable     string
)

func init() {
	fs := &Analyzer.Flags
	fs.IntVar(&maxCycle, "maxcycle", maxCycle, "longest cycle of locks to look for")
	fs.BoolVar(&deferred, "wholeprogram", false,
		"do not report cycles per package; the driver reports them over all packages (set by the pglockorder command)")
	fs.BoolVar(&debugMode, "debug", false, "print why SQL was skipped")
	fs.BoolVar(&withRelated, "related", true, "attach each finding's path steps as related information (drivers that show it as separate issues turn it off)")
	fs.StringVar(&disable, "disable", "", "comma-separated categories of findings not to report (e.g. unordered-row-lock,loop-lock-order)")
}

// Disabled reports whether findings of a category are turned off with the
// disable flag.
func Disabled(category string) bool {
	for c := range strings.SplitSeq(disable, ",") {
		if strings.TrimSpace(c) == category {
			return true
		}
	}
	return false
}

// Categories lists every category of finding, for -disable: those of the
// catalogue (package category).
var Categories = category.IDs()

// MaxCycle is the maxcycle flag: the longest cycle of locks searched.
func MaxCycle() int { return maxCycle }

// Debug is the debug flag: list the SQL that was skipped.
func Debug() bool { return debugMode }

// CheckSettings reports a setting no run can honour: -maxcycle out of
// range, or a -disable category that does not exist (a typo would
// silently disable nothing).
func CheckSettings() error {
	if maxCycle < 2 || maxCycle > 12 {
		return fmt.Errorf("maxcycle must be between 2 and 12, not %d", maxCycle)
	}
	for c := range strings.SplitSeq(disable, ",") {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(Categories, c) {
			return fmt.Errorf("disable: unknown category %q (known: %s)", c, strings.Join(Categories, ", "))
		}
	}
	return nil
}

// emit reports a diagnostic. Categories turned off with -disable are
// dropped last, by withDisabled, so that an ignore directive still sees
// (and is not reported stale for) the finding it covers.
func emit(pass *analysis.Pass, d analysis.Diagnostic) {
	pass.Report(d)
}

// withURLs returns a copy of pass whose Report links each diagnostic to its
// category's documentation (Diagnostic.URL), from the catalogue, and drops
// its related information when the related flag is off.
func withURLs(pass *analysis.Pass) *analysis.Pass {
	linked := *pass
	linked.Report = func(d analysis.Diagnostic) {
		if c, ok := category.Lookup(d.Category); ok && d.URL == "" {
			d.URL = c.URL()
		}
		if !withRelated {
			d.Related = nil
		}
		pass.Report(d)
	}
	return &linked
}

// withDisabled returns a copy of pass whose Report drops the categories
// turned off with -disable.
func withDisabled(pass *analysis.Pass) *analysis.Pass {
	if disable == "" {
		return pass
	}
	filtered := *pass
	filtered.Report = func(d analysis.Diagnostic) {
		if !Disabled(d.Category) {
			pass.Report(d)
		}
	}
	return &filtered
}

// PackageInfo is the package fact: whether the package runs SQL, and the
// lock-order edges of it and of every package it imports, so that a package
// sees the cycles formed with its dependencies (go vet passes facts only
// along direct imports).
type PackageInfo struct {
	HasSQL bool
	Edges  []lockgraph.Edge
	// Ordered lists the ordered multi-row locks of the package and its
	// imports, for the row-order-mismatch rule.
	Ordered []lockseq.OrderedLock
	// TempTables are the temporary tables created by the package and its
	// imports: locks on them are never shared between sessions.
	TempTables []string
}

// AFact marks PackageInfo as an analysis fact.
func (*PackageInfo) AFact() {}

func (p *PackageInfo) String() string {
	s := fmt.Sprintf("sql=%t edges=%d", p.HasSQL, len(p.Edges))
	if len(p.TempTables) > 0 {
		s += fmt.Sprintf(" temp=%v", p.TempTables)
	}
	return s
}

// Result is the analyzer's result for one package: its own edges and
// findings, for drivers that report over a whole program.
type Result struct {
	// Edges are the lock-order edges found in the package's functions.
	Edges []*lockgraph.Edge
	// TempTables are the temporary tables the package's SQL creates.
	TempTables []string
	// Ordered are the package's ordered multi-row locks, which the
	// driver compares across packages (row-order-mismatch).
	Ordered []lockseq.OrderedLock
	// Ignores are the package's //pglockorder:ignore directives, for the
	// whole-program driver to match its own findings against (set with
	// -wholeprogram only).
	Ignores []Ignore
	// Skipped is the SQL not analysed (not parsed, built at run time),
	// which the whole-program driver counts at the end of the run.
	Skipped []lockseq.Skip
	// Locked are the names a declared order can give the locks the
	// package requests (see OrderName), sorted.
	Locked []string
	// Sites are the package's calls that send SQL, for -explain.
	Sites []lockseq.Site
	// Limits are the analysis bounds the package's functions reached
	// (lockseq.Limit): the driver warns about them.
	Limits []lockseq.Limit
	// Dispatch counts the package's calls through interfaces and how
	// they were resolved, for -v.
	Dispatch lockseq.DispatchStats
	// Lookups are the method names the package's calls through
	// interfaces looked up among the other packages' methods with
	// summaries, and what each found (MethodsWithFacts): with the facts
	// the pass read, what its result depends on of the packages it does
	// not import, for a driver to tell whether analysing it again would
	// give the same result.
	Lookups map[string][]*types.Func
	// Dialect is what the dialect rules skipped in the package, for -v.
	Dialect DialectReport
}

// run analyses one package. A panic inside the analysis (a bug of
// pglockorder's, or input it was not written for) becomes an error of this
// package, in every driver: go vet and golangci-lint report it and go on
// with the other packages, as the command does, instead of crashing.
func run(pass *analysis.Pass) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error analysing %s (please report it): %v\n%s", pass.Pkg.Path(), r, debug.Stack())
		}
	}()
	return analyze(pass)
}

// testHookAnalyze, when set by a test, runs first in analyze.
var testHookAnalyze func(*analysis.Pass)

func analyze(pass *analysis.Pass) (any, error) {
	if testHookAnalyze != nil {
		testHookAnalyze(pass)
	}
	if err := CheckSettings(); err != nil {
		return nil, err
	}
	pass, ignores := withIgnores(withDisabled(withURLs(pass))) // //pglockorder:ignore (suppress.go)
	res := &Result{Lookups: map[string][]*types.Func{}}
	defer ignores.finish(res)
	if pass.Pkg.Name() == "main" && strings.HasSuffix(pass.Pkg.Path(), ".test") {
		// The main package go test generates runs the tests; it runs
		// no SQL of its own and nothing imports it.
		return res, nil
	}
	methods := factMethods(pass, res.Lookups)
	rules := UserRules()
	info, relevant := importedInfo(pass, rules)
	relevant = relevant || invokesLocking(pass, methods)
	// The database APIs are modelled, never analysed: their bodies run
	// SQL built at run time and would only cost time.
	if !relevant || sqlsite.IsDriverPackage(pass.Pkg.Path()) {
		if len(info.Edges) > 0 || len(info.Ordered) > 0 {
			pass.ExportPackageFact(info)
		}
		return res, nil
	}
	info.HasSQL = true

	pkg := buildSSA(pass)
	st := resolveSettings(pass) // flags and the module's configuration (dialect.go)
	an := lockseq.New(lockseq.Env{
		Fset: pass.Fset,
		ImportSummary: func(fn *types.Func) *lockseq.Summary {
			var s lockseq.Summary
			if pass.ImportObjectFact(fn, &s) {
				return &s
			}
			return nil
		},
		SkipSQL: st.skipSQL(pass.Pkg.Path(), &res.Dialect), // dialects (dialect.go)
		Methods: methods,                                   // implementations of interfaces (dispatch.go)
		Strings: importedStrings(pass),
		Schema:  st.schema,
		Rules:   rules,
	})
	exportStrings(pass, pkg)
	funcs := sourceFuncs(pass, pkg)
	for _, fn := range funcs {
		an.Summary(fn)
		if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() == pass.Pkg && exportable(obj) {
			if s := an.Summary(fn); !s.Empty() {
				pass.ExportObjectFact(obj, s)
			}
		}
	}
	an.GateByCallers(funcs) // gates that every caller holds (lockseq/entry.go)
	for _, l := range an.Leaks {
		if l.Returned {
			var taken token.Position
			if len(l.Path) > 0 {
				taken = l.Path[len(l.Path)-1].Pos
			}
			emit(pass, analysis.Diagnostic{Pos: l.Pos, Category: report.CategoryLeak, Message: report.ReturnedMessage(l.Lock, taken, report.Options{Rel: moduleRelative}),
				Related: related(pass, report.PathRelated("takes "+l.Lock.String(), l.Path))})
			continue
		}
		emit(pass, analysis.Diagnostic{Pos: l.Pos, Category: report.CategoryPoolAdvisor, Message: report.LeakMessage(l.Lock),
			Related: related(pass, report.PathRelated("takes "+l.Lock.String(), l.Path))})
	}

	res.Edges = an.Edges
	res.Skipped, res.Locked = an.Skipped, orderNames(an.Locked) // SQL not analysed, lock names (debug.go)
	res.Sites = an.Sites
	res.Dispatch = an.Dispatch
	debugDispatch(pass, an.Dispatch)
	ignores.mayBeRemote(an.Edges, an.Ordered) // stale only where no other driver's finding lands (suppress.go)
	if !deferred {
		debugSkipped(pass, an.Skipped)
	}
	res.Limits = an.Limits
	if err := checkDeclaredOrder(pass, an, st); err != nil { // .pglockorder.yaml (order.go)
		return nil, err
	}
	res.TempTables = sortedSet(an.TempTables)
	res.Ordered = an.Ordered
	info.Ordered = withoutSites(reportRows(pass, an, info.Ordered))
	if deferred {
		// The driver sees every package's edges in its results: the
		// fact needs no copy of them.
		pass.ExportPackageFact(info)
		return res, nil
	}
	all := make([]*lockgraph.Edge, 0, len(info.Edges)+len(an.Edges))
	for i := range info.Edges {
		all = append(all, &info.Edges[i])
	}
	all = append(all, an.Edges...)
	all = lockgraph.Dedupe(all)
	info.Edges = make([]lockgraph.Edge, len(all))
	for i, e := range all {
		info.Edges[i] = *e
	}
	temps := map[string]bool{}
	for _, t := range append(info.TempTables, res.TempTables...) {
		temps[t] = true
	}
	info.TempTables = sortedSet(temps)
	fact := info
	if pass.Pkg.Name() == "main" {
		// No package imports a command: its fact needs no copy of the
		// edges, which for a command linking a whole monorepo are all
		// of them.
		fact = &PackageInfo{HasSQL: true, TempTables: info.TempTables}
	}
	pass.ExportPackageFact(fact)
	debugFactSize(pass, fact)
	reportCycles(pass, an, lockgraph.WithoutTables(all, temps))
	return res, nil
}

// reportCycles reports the cycles that have a path in this package, at that
// path's second lock request.
func reportCycles(pass *analysis.Pass, an *lockseq.Analysis, edges []*lockgraph.Edge) {
	own := map[string]token.Pos{}
	for e, pos := range an.EdgePos {
		own[edgeID(e)] = pos
	}
	for _, c := range lockgraph.New(edges).Cycles(maxCycle) {
		if MigrationsOnly(c) {
			continue
		}
		pos := token.NoPos
		try := func(i int) {
			if i >= 0 && pos == token.NoPos {
				if pos = own[edgeID(c.Steps[i])]; pos != token.NoPos {
					pos = anchorPos(pass, pos, c.Steps[i].Anchor())
				}
			}
		}
		try(c.Breaker)
		for i := range c.Steps {
			try(i)
		}
		if pos == token.NoPos {
			continue // reported where one of its paths is
		}
		emit(pass, analysis.Diagnostic{Pos: pos, Category: report.Category(c), Message: report.Message(c, report.Options{Rel: moduleRelative}),
			Related: related(pass, report.CycleRelated(c))})
	}
}

// anchorPos returns the position of anchor (an edge's report position,
// inside a closure of its function when the request is made there) in the
// file of pos, or pos when anchor is elsewhere.
func anchorPos(pass *analysis.Pass, pos token.Pos, anchor token.Position) token.Pos {
	f := pass.Fset.File(pos)
	if f == nil || f.Name() != anchor.Filename || anchor.Line < 1 || anchor.Line > f.LineCount() {
		return pos
	}
	return f.LineStart(anchor.Line) + token.Pos(anchor.Column-1)
}

// edgeID identifies an edge across the copy made for the package fact.
func edgeID(e *lockgraph.Edge) string {
	return e.Func + "|" + e.Held.Class.String() + "|" + e.Wanted.Class.String() + "|" + e.Anchor().String() + "|" + fmt.Sprint(e.Held.Mode, e.Wanted.Mode, e.CrossConn)
}

// importedInfo merges the package facts of the direct imports and reports
// whether this package needs SSA: it imports a database API, a package that
// runs SQL, or declares a query interface of its own.
func importedInfo(pass *analysis.Pass, rules *sqlsite.Rules) (*PackageInfo, bool) {
	info := &PackageInfo{}
	relevant := false
	for _, imp := range pass.Pkg.Imports() {
		if sqlsite.IsDriverPackage(imp.Path()) || rules.IsRulePackage(imp.Path()) {
			relevant = true
		}
		var dep PackageInfo
		if pass.ImportPackageFact(imp, &dep) {
			relevant = relevant || dep.HasSQL
			if !deferred {
				info.Edges = append(info.Edges, dep.Edges...)
				info.Ordered = append(info.Ordered, dep.Ordered...)
				info.TempTables = append(info.TempTables, dep.TempTables...)
			}
		}
	}
	if !relevant {
		scope := pass.Pkg.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && rules.KindOf(tn.Type()) == sqlsite.Maybe {
				relevant = true
				break
			}
		}
	}
	if len(info.Edges) > 0 {
		ptrs := make([]*lockgraph.Edge, len(info.Edges))
		for i := range info.Edges {
			ptrs[i] = &info.Edges[i]
		}
		ptrs = oneWitness(ptrs)
		edges := make([]lockgraph.Edge, len(ptrs))
		for i, e := range ptrs {
			edges[i] = *e
		}
		info.Edges = edges
	}
	return info, relevant
}

// oneWitness keeps, of the edges imported from dependencies, one per lock
// pair: classes, modes, kind of wait, connection and gates, which is all the
// cycle search looks at. The package fact re-exports the edges of the whole
// import closure (go vet passes package facts only along direct imports),
// so keeping every function's witness would make facts, and the time to
// read and write them, grow with the square of a monorepo's depth; one
// witness per pair bounds them by the number of distinct lock pairs. The
// package's own edges are all kept: cycles are reported at them.
func oneWitness(edges []*lockgraph.Edge) []*lockgraph.Edge {
	slices.SortStableFunc(edges, lockgraph.Compare)
	seen := make(map[string]bool, len(edges))
	out := edges[:0]
	for _, e := range edges {
		k := fmt.Sprint(e.Held, e.Wanted, e.CrossConn, e.Gates)
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// exportable reports whether a fact on fn can reach importers: go vet drops
// facts on unexported package-level functions.
func exportable(fn *types.Func) bool {
	return fn.Exported() || fn.Signature().Recv() != nil
}

// buildSSA builds SSA for the package alone, its imports as stubs, the way
// the buildssa pass does; it is built only for packages that can run SQL.
func buildSSA(pass *analysis.Pass) *ssa.Package {
	prog := ssa.NewProgram(pass.Fset, ssa.InstantiateGenerics)
	for _, p := range pass.Pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	pkg := prog.CreatePackage(pass.Pkg, pass.Files, pass.TypesInfo, false)
	pkg.Build()
	return pkg
}

// sourceFuncs lists the package's functions, closures included, in source
// order.
func sourceFuncs(pass *analysis.Pass, pkg *ssa.Package) []*ssa.Function {
	var out []*ssa.Function
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		out = append(out, f)
		for _, anon := range f.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range pass.Files {
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			obj, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			if f := pkg.Prog.FuncValue(obj); f != nil {
				add(f)
			}
		}
	}
	return out
}

func debugf(pass *analysis.Pass) func(string, ...any) {
	if !debugMode {
		return nil
	}
	return func(format string, args ...any) {
		fmt.Fprintf(debugOut, "pglockorder: %s: "+format+"\n", append([]any{pass.Pkg.Path()}, args...)...)
	}
}

// sortedSet returns the keys of a set, sorted, for deterministic facts.
func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// moduleRoots caches, per directory, the root of the module it is in.
var moduleRoots sync.Map

// moduleRelative shortens a file name to a path relative to the root of
// its module, the form go vet prints the report's own position in when it
// runs at the module root.
func moduleRelative(file string) string {
	if !filepath.IsAbs(file) {
		return file
	}
	root := moduleRoot(filepath.Dir(file))
	if root == "" {
		return file
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return file
	}
	return rel
}

// relPosition renders a position with its file name relative to its
// module's root.
func relPosition(p token.Position) string {
	if p.IsValid() {
		p.Filename = moduleRelative(p.Filename)
	}
	return p.String()
}

// moduleRoot returns the nearest directory at or above dir that holds a
// go.mod file, or "".
func moduleRoot(dir string) string {
	if r, ok := moduleRoots.Load(dir); ok {
		return r.(string)
	}
	root := ""
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		root = dir
	} else if parent := filepath.Dir(dir); parent != dir {
		root = moduleRoot(parent)
	}
	moduleRoots.Store(dir, root)
	return root
}
