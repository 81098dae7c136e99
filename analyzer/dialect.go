package analyzer

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/analyzer/sqlsite"
)

// Statements in code that talks to MySQL, MariaDB or SQLite are not
// PostgreSQL: their locks are not PostgreSQL's and their parse, with `?`
// read as `$n`, often succeeds. A package's dialect is decided, first
// match wins:
//
//  1. by the dialects: key of the configuration file (package patterns);
//  2. by the package itself: the drivers it imports and the driver names
//     it passes to sql.Open (or sqlx.Open/Connect). One dialect other than
//     PostgreSQL is that dialect. A package that imports both a PostgreSQL
//     driver and another is ambiguous: it is analysed as PostgreSQL, since a
//     missed deadlock costs more than a false alarm that a dialects: entry
//     silences (-v names such packages);
//  3. by the whole program (the pglockorder command, flag linked-dialects):
//     a package that uses database/sql without choosing a driver speaks the
//     dialect of the drivers linked into every binary that imports it, when
//     all of them link drivers of that one dialect and none of PostgreSQL;
//  4. otherwise PostgreSQL.
//
// Whatever the package, a statement with syntax PostgreSQL rejects
// (backtick identifiers, LOCK IN SHARE MODE, ON DUPLICATE KEY UPDATE, ...)
// is skipped as another dialect's, not reported as unparsable.

// linkedDialects is the linked-dialects flag: "importpath=dialect,...",
// set by the whole-program command from the drivers each binary links.
var linkedDialects string

func init() {
	Analyzer.Flags.StringVar(&linkedDialects, "linked-dialects", "",
		"comma-separated `importpath=dialect`: the dialect of packages that use database/sql without choosing a driver, "+
			"from the drivers the binaries that import them link (set by the pglockorder command)")
}

// dialectChoice is a package's dialect and why.
type dialectChoice struct {
	dialect, why string
}

// packageDialect decides the dialect of the pass's package (see above).
func packageDialect(pass *analysis.Pass) (dialectChoice, error) {
	path := pass.Pkg.Path()
	cfg, err := passConfig(pass)
	if err != nil {
		return dialectChoice{}, err
	}
	if cfg != nil && len(cfg.Dialects) > 0 {
		root := filepath.Dir(cfg.File)
		if d, pat, ok := matchDialect(cfg.Dialects, path, modulePath(root)); ok {
			return dialectChoice{d, fmt.Sprintf("%s: dialects: %s", filepath.Base(cfg.File), pat)}, nil
		}
	}
	own := map[string][]string{} // dialect -> evidence
	for _, imp := range pass.Pkg.Imports() {
		if d := sqlsite.DriverDialect(imp.Path()); d != "" {
			own[d] = append(own[d], "imports "+imp.Path())
		}
	}
	for name := range openedDrivers(pass) {
		if d := sqlsite.OpenDialect(name); d != "" {
			own[d] = append(own[d], fmt.Sprintf("opens driver %q", name))
		}
	}
	switch {
	case len(own) == 1:
		for d, ev := range own {
			return dialectChoice{d, strings.Join(ev, ", ")}, nil
		}
	case len(own) > 1:
		var ev []string
		for _, d := range slices.Sorted(mapsKeys(own)) {
			ev = append(ev, own[d]...)
		}
		return dialectChoice{sqlsite.PostgreSQL, "ambiguous (" + strings.Join(ev, ", ") + "): analysed as PostgreSQL; a dialects: entry decides"}, nil
	}
	for entry := range strings.SplitSeq(linkedDialects, ",") {
		if p, d, ok := strings.Cut(entry, "="); ok && p == strings.TrimSuffix(path, "_test") {
			return dialectChoice{d, "the binaries that import it link only " + d + " drivers"}, nil
		}
	}
	return dialectChoice{sqlsite.PostgreSQL, ""}, nil
}

func mapsKeys(m map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// openedDrivers lists the constant driver names the package passes to
// sql.Open, sqlx.Open, sqlx.Connect and their Must forms.
func openedDrivers(pass *analysis.Pass) map[string]bool {
	out := map[string]bool{}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var id *ast.Ident
			switch fn := ast.Unparen(call.Fun).(type) {
			case *ast.SelectorExpr:
				id = fn.Sel
			case *ast.Ident:
				id = fn
			}
			if id == nil {
				return true
			}
			obj, ok := pass.TypesInfo.Uses[id].(*types.Func)
			if !ok || obj.Pkg() == nil {
				return true
			}
			switch obj.Pkg().Path() {
			case "database/sql", "github.com/jmoiron/sqlx":
			default:
				return true
			}
			switch obj.Name() {
			case "Open", "Connect", "MustOpen", "MustConnect", "ConnectContext", "MustConnectContext":
			default:
				return true
			}
			arg := call.Args[0]
			if strings.HasSuffix(obj.Name(), "Context") && len(call.Args) > 1 {
				arg = call.Args[1]
			}
			if tv, ok := pass.TypesInfo.Types[arg]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				out[constant.StringVal(tv.Value)] = true
			}
			return true
		})
	}
	return out
}

// matchDialect returns the dialect of the most specific pattern that
// matches path: patterns are import paths with "..." wildcards, or
// "./dir/..." relative to the module (whose path is module).
func matchDialect(patterns map[string]string, path, module string) (string, string, bool) {
	path = strings.TrimSuffix(path, "_test")
	best, bestPat := "", ""
	for pat, d := range patterns {
		full := pat
		if rel, ok := strings.CutPrefix(pat, "./"); ok || pat == "." {
			if module == "" {
				continue
			}
			full = strings.TrimSuffix(module+"/"+rel, "/")
		}
		if matchPattern(full, path) && len(pat) > len(bestPat) {
			best, bestPat = d, pat
		}
	}
	return best, bestPat, bestPat != ""
}

// matchPattern reports whether an import path matches a go list style
// pattern: "..." matches any string, and "x/..." also matches "x".
func matchPattern(pattern, path string) bool {
	re := regexp.QuoteMeta(pattern)
	re = strings.ReplaceAll(re, `/\.\.\.`, `(/.*)?`)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	ok, err := regexp.MatchString("^"+re+"$", path)
	return err == nil && ok
}

// modulePaths caches the module path declared in a root's go.mod.
var modulePaths sync.Map

// modulePath returns the module path of the go.mod in root, or "".
func modulePath(root string) string {
	if p, ok := modulePaths.Load(root); ok {
		return p.(string)
	}
	path := ""
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		path = modfile.ModulePath(data)
	}
	modulePaths.Store(root, path)
	return path
}

// DialectReport is what the dialect rules skipped in a run.
type DialectReport struct {
	// Skipped counts the distinct statements skipped, by reason
	// ("dialect mysql", "mysql syntax: backtick identifiers").
	Skipped map[string]int
	// Packages maps the packages not analysed as PostgreSQL, and the
	// ambiguous ones, to their dialect and why.
	Packages map[string]string
}

// Add adds o's counts and notes to r.
func (r *DialectReport) Add(o DialectReport) {
	for k, n := range o.Skipped {
		if r.Skipped == nil {
			r.Skipped = map[string]int{}
		}
		r.Skipped[k] += n
	}
	for k, v := range o.Packages {
		if r.Packages == nil {
			r.Packages = map[string]string{}
		}
		r.Packages[k] = v
	}
}

// String renders the report for -v, one line per reason and package.
func (r DialectReport) String() string {
	var b strings.Builder
	reasons := make([]string, 0, len(r.Skipped))
	for k := range r.Skipped {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(&b, "SQL skipped (%s): %d\n", k, r.Skipped[k])
	}
	pkgs := make([]string, 0, len(r.Packages))
	for k := range r.Packages {
		pkgs = append(pkgs, k)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		fmt.Fprintf(&b, "dialect of %s: %s\n", p, r.Packages[p])
	}
	return b.String()
}

// configured applies what the configuration file says about the pass's
// package's SQL: the schema: to read when no -schema was given (the way the
// per-package drivers get one: the whole-program command finds it itself),
// and the dialect. It returns the function that tells the lock analysis
// which SQL is not PostgreSQL, and why ("" for PostgreSQL), counting the
// distinct statements it skips, and the package's dialect when it is not
// PostgreSQL, in report.
//
// A configuration file that cannot be read is reported by the declared
// order's check of the same file; here it only decides nothing.
func configured(pass *analysis.Pass, report *DialectReport) func(sql string) string {
	configSchema(pass)
	choice, err := packageDialect(pass)
	if err != nil {
		choice = dialectChoice{dialect: sqlsite.PostgreSQL}
	}
	pkg := pass.Pkg.Path()
	if choice.dialect != sqlsite.PostgreSQL || strings.HasPrefix(choice.why, "ambiguous") {
		report.Packages = map[string]string{pkg: choice.dialect + ": " + choice.why}
	}
	seen := map[string]bool{}
	return func(sql string) string {
		reason := ""
		switch {
		case choice.dialect != sqlsite.PostgreSQL:
			reason = "dialect " + choice.dialect
		default:
			if f := sqlsite.ForeignSyntax(sql); f != "" {
				reason = "not PostgreSQL syntax: " + f
			}
		}
		if reason != "" {
			if !seen[sql] {
				seen[sql] = true
				if report.Skipped == nil {
					report.Skipped = map[string]int{}
				}
				report.Skipped[reason]++
			}
		}
		return reason
	}
}

// schemaMu guards setting the schema from the configuration: golangci-lint
// runs passes concurrently.
var schemaMu sync.Mutex

// configSchema loads the configuration's schema: when the schema flag is
// not set. A schema that cannot be read is reported on stderr once and
// left out: the configuration's own errors are the declared order's to
// report.
func configSchema(pass *analysis.Pass) {
	cfg, err := passConfig(pass)
	if err != nil || cfg == nil || cfg.Schema == "" {
		return
	}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if schemaFlag.String() != "" {
		return
	}
	value := cfg.Schema
	if value != "none" && !filepath.IsAbs(value) {
		value = filepath.Join(filepath.Dir(cfg.File), value)
	}
	if err := schemaFlag.Set(value); err != nil {
		fmt.Fprintf(os.Stderr, "pglockorder: %s: schema: %v\n", cfg.File, err)
		_ = schemaFlag.Set("none")
	}
}
