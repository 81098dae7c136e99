package analyzer

import (
	_ "embed"
	"errors"
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
	"github.com/pglockorder/pglockorder/internal/findings"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// Analyzer reports PostgreSQL lock-order inversions that can deadlock. It
// requires Facts, which does the analysis, and reports what a package and
// its imports show, with the rules of package internal/findings.
var Analyzer = &analysis.Analyzer{
	Name:      "pglockorder",
	Doc:       doc,
	URL:       "https://github.com/pglockorder/pglockorder",
	Run:       runReport,
	Requires:  []*analysis.Analyzer{Facts},
	FactTypes: []analysis.Fact{new(PackageInfo)},
}

// Facts computes, per package, the lock sequences of its functions (facts
// for the packages that call them) and everything pglockorder reports on,
// as its *Result; it reports nothing itself. Its settings are Analyzer's
// flags. The pglockorder command runs it alone over a whole program and
// reports with the same rules as Analyzer.
var Facts = &analysis.Analyzer{
	Name:       "pglockorderfacts",
	Doc:        factsDoc,
	URL:        "https://github.com/pglockorder/pglockorder",
	Run:        runFacts,
	FactTypes:  []analysis.Fact{new(lockseq.Summary), new(RunsSQL), new(StringsFact), new(TableNameFact)},
	ResultType: reflect.TypeFor[*Result](),
}

// docSource is this package's doc.go: the analyzers' documentation is the
// sections of its package comment headed "# Analyzer pglockorder" and
// "# Analyzer pglockorderfacts", as the passes of golang.org/x/tools keep
// it, written once.
//
//go:embed doc.go
var docSource string

// doc and factsDoc are the analyzers' Doc, taken from docSource.
var (
	doc      = analyzerDoc(docSource, "pglockorder")
	factsDoc = analyzerDoc(docSource, "pglockorderfacts")
)

// Settings of the analyzers, set through Analyzer's flags.
var (
	maxCycle  = 4
	debugMode bool
	// withRelated is the related flag: attach path steps as
	// Diagnostic.Related.
	withRelated = true
	disable     string
)

func init() {
	fs := &Analyzer.Flags
	fs.IntVar(&maxCycle, "maxcycle", maxCycle, "longest cycle of locks to look for")
	fs.BoolVar(&debugMode, "debug", false, "print why SQL was skipped")
	fs.BoolVar(&withRelated, "related", true, "attach each finding's path steps as related information (drivers that show it as separate issues turn it off)")
	fs.StringVar(&disable, "disable", "", "comma-separated categories of findings not to report (e.g. unordered-row-lock,loop-lock-order)")
}

// Policy returns the reporting settings of the flags: the longest cycle
// searched and the categories turned off.
func Policy() findings.Settings {
	return findings.Settings{MaxCycle: maxCycle, Disable: findings.ParseDisable(disable)}
}

// Categories lists every category of finding, for -disable: those of the
// catalogue (package category).
var Categories = category.IDs()

// Debug is the debug flag: list the SQL that was skipped.
func Debug() bool { return debugMode }

// CheckSettings reports a setting no run can honour: -maxcycle out of
// range, or a -disable category that does not exist.
func CheckSettings() error { return Policy().Check() }

// RunsSQL is the package fact of Facts for a package whose code can run SQL
// (it imports a database API or a package that runs SQL, or calls a method
// that one implements): the packages that import it are analysed too.
type RunsSQL struct{}

// AFact marks RunsSQL as an analysis fact.
func (*RunsSQL) AFact() {}

func (*RunsSQL) String() string { return "runs SQL" }

// PackageInfo is Analyzer's package fact: whether the package runs SQL, and
// the lock-order edges of it and of every package it imports, so that a
// package sees the cycles formed with its dependencies (go vet passes facts
// only along direct imports). The pglockorder command, which sees every
// package, does not compute it.
type PackageInfo struct {
	HasSQL bool
	// Edges encode their frames, locks and strings once each
	// (lockgraph.EdgeList): every path of a package's edges names the
	// same few files and functions, and go vet writes the fact of every
	// dependency into each package's vetx file.
	Edges lockgraph.EdgeList
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

// Result is the result of Facts for one package: what it found, for the
// reporters (Analyzer, and the command over a whole program).
type Result struct {
	// Err is why the package could not be analysed, or nil.
	Err error
	// HasSQL is set when the package's code can run SQL and was
	// analysed.
	HasSQL bool
	// Edges are the lock-order edges found in the package's functions.
	Edges []*lockgraph.Edge
	// EdgePos maps each edge to the position of its second request in
	// the function where it was found: where a finding about it is
	// reported.
	EdgePos map[*lockgraph.Edge]token.Pos
	// TempTables are the temporary tables the package's SQL creates.
	TempTables []string
	// Ordered are the package's ordered multi-row locks, which the
	// reporters compare with those of other packages
	// (row-order-mismatch).
	Ordered []lockseq.OrderedLock
	// Rows are the package's row-order findings, Leaks its session
	// advisory locks that a pool may hand on.
	Rows  []lockseq.RowFinding
	Leaks []lockseq.Leak
	// Lent names the lent row findings of other packages' functions that
	// the package's calls judged again (lockseq.Analysis.Lent), and
	// LentKept those that one of its calls leaves standing: a driver that
	// sees the whole program withdraws the reports, in the function's own
	// package, of those some package judged and none kept.
	Lent, LentKept []string
	// Order is the lock order the package's module declares, or nil.
	Order *DeclaredOrder
	// Ignores are the package's //pglockorder:ignore directives.
	Ignores []findings.Directive
	// Skipped is the SQL not analysed (not parsed, built at run time).
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

// runFacts analyses one package. An error (a malformed configuration, a
// setting out of range) and a panic inside the analysis (a bug of
// pglockorder's, or input it was not written for) become the package's
// Result.Err, which the reporters return as the package's error, in every
// driver: go vet and golangci-lint print only the errors of the analyzers
// they were asked to run, not those of the passes these require. They
// report it and go on with the other packages, as the command does,
// instead of crashing.
func runFacts(pass *analysis.Pass) (any, error) {
	res, err := func() (res any, err error) {
		defer recoverAsError(pass, &res, &err)
		return analyze(pass)
	}()
	if err != nil {
		return &Result{Err: err}, nil
	}
	return res, nil
}

// ErrInternal marks the error of a pass that panicked: a bug of
// pglockorder, whose error carries the stack for the report.
var ErrInternal = errors.New("internal error")

// recoverAsError turns a panic of a pass into its error.
func recoverAsError(pass *analysis.Pass, res *any, err *error) {
	if r := recover(); r != nil {
		*res, *err = nil, fmt.Errorf("%w analysing %s (please report it): %v\n%s", ErrInternal, pass.Pkg.Path(), r, debug.Stack())
	}
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
	res := &Result{Lookups: map[string][]*types.Func{}}
	res.Ignores = findings.Directives(pass.Fset, pass.Files, pass.Pkg.Path())
	if testMain(pass.Pkg) {
		return res, nil
	}
	methods := factMethods(pass, res.Lookups)
	rules := UserRules()
	relevant := importsSQL(pass, rules) || invokesLocking(pass, methods)
	// The database APIs are modelled, never analysed: their bodies run
	// SQL built at run time and would only cost time.
	if !relevant || sqlsite.IsDriverPackage(pass.Pkg.Path()) {
		return res, nil
	}
	res.HasSQL = true
	pass.ExportPackageFact(&RunsSQL{})

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
		SkipSQL:   st.skipSQL(pass.Pkg.Path(), &res.Dialect), // dialects (dialect.go)
		Methods:   methods,                                   // implementations of interfaces (dispatch.go)
		Strings:   importedStrings(pass),
		TableName: importedTableName(pass),
		Schema:    st.schema,
		Rules:     rules,
	})
	exportStrings(pass, pkg)
	exportTableNames(pass, pkg)
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
	an.WithdrawLent(funcs)  // statements its callers judge (lockseq/rows.go)
	if st.err != nil {
		return nil, st.err
	}
	res.Edges, res.EdgePos = an.Edges, an.EdgePos
	res.Leaks, res.Rows = an.Leaks, an.Rows
	res.Lent, res.LentKept = verdicts(an.Lent)
	res.Skipped, res.Locked = an.Skipped, orderNames(an.Locked) // SQL not analysed, lock names (debug.go)
	res.Sites = an.Sites
	res.Dispatch = an.Dispatch
	res.Limits = an.Limits
	res.Order = st.order() // .pglockorder.yaml (order.go)
	res.TempTables = sortedSet(an.TempTables)
	res.Ordered = an.Ordered
	return res, nil
}

// testMain reports whether pkg is the main package go test generates: it
// runs the tests, runs no SQL of its own, and nothing imports it.
func testMain(pkg *types.Package) bool {
	return pkg.Name() == "main" && strings.HasSuffix(pkg.Path(), ".test")
}

// edgeID identifies an edge across the copy made for the package fact.
func edgeID(e *lockgraph.Edge) string {
	return e.Func + "|" + e.Held.Class.String() + "|" + e.Wanted.Class.String() + "|" + e.Anchor().String() + "|" + fmt.Sprint(e.Held.Mode, e.Wanted.Mode, e.CrossConn)
}

// importsSQL reports whether the package needs SSA: it imports a database
// API or a package that runs SQL, declares a query interface of its own, or
// gives its importers what their SQL needs: SQL files it embeds, or the
// table name of an ORM model (TableNameFact).
func importsSQL(pass *analysis.Pass, rules *sqlsite.Rules) bool {
	for _, imp := range pass.Pkg.Imports() {
		if sqlsite.IsDriverPackage(imp.Path()) || rules.IsRulePackage(imp.Path()) || pass.ImportPackageFact(imp, new(RunsSQL)) {
			return true
		}
	}
	scope := pass.Pkg.Scope()
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && rules.KindOf(tn.Type()) == sqlsite.Maybe {
			return true
		}
	}
	return sqlsite.EmbedsSQL(pass.Fset, pass.Files) || sqlsite.DeclaresTableName(pass.Pkg)
}

// importedInfo merges the package facts of the direct imports: the edges,
// ordered locks and temporary tables of the import closure, one witness per
// lock pair.
func importedInfo(pass *analysis.Pass) *PackageInfo {
	info := &PackageInfo{}
	for _, imp := range pass.Pkg.Imports() {
		var dep PackageInfo
		if pass.ImportPackageFact(imp, &dep) {
			info.Edges = append(info.Edges, dep.Edges...)
			info.Ordered = append(info.Ordered, dep.Ordered...)
			info.TempTables = append(info.TempTables, dep.TempTables...)
		}
	}
	if len(info.Edges) > 0 {
		info.Edges = oneWitness(info.Edges)
	}
	return info
}

// oneWitness keeps, of the edges imported from dependencies, one per lock
// pair: classes, modes, kind of wait, connection, gates and keyed gates, which is all the
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
		k := fmt.Sprint(e.Held, e.Wanted, e.CrossConn, e.Gates, e.Keyed)
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
// verdicts splits the verdicts on lent findings into those judged
// harmless (or reported at the call) and those left standing, each sorted.
func verdicts(lent map[string]bool) (judged, kept []string) {
	for k, ok := range lent {
		if ok {
			judged = append(judged, k)
		} else {
			kept = append(kept, k)
		}
	}
	slices.Sort(judged)
	slices.Sort(kept)
	return judged, kept
}

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
