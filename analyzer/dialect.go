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

	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
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

// packageDialect decides the dialect of the pass's package (see above),
// with cfg the configuration of its module (nil: none).
func packageDialect(pass *analysis.Pass, cfg *Config) dialectChoice {
	path := pass.Pkg.Path()
	if cfg != nil && len(cfg.Dialects) > 0 {
		root := filepath.Dir(cfg.File)
		if d, pat, ok := matchDialect(cfg.Dialects, path, modulePath(root)); ok {
			return dialectChoice{d, fmt.Sprintf("%s: dialects: %s", filepath.Base(cfg.File), pat)}
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
			return dialectChoice{d, strings.Join(ev, ", ")}
		}
	case len(own) > 1:
		var ev []string
		for _, d := range slices.Sorted(mapsKeys(own)) {
			ev = append(ev, own[d]...)
		}
		return dialectChoice{sqlsite.PostgreSQL, "ambiguous (" + strings.Join(ev, ", ") + "): analysed as PostgreSQL; a dialects: entry decides"}
	}
	for entry := range strings.SplitSeq(linkedDialects, ",") {
		if p, d, ok := strings.Cut(entry, "="); ok && p == strings.TrimSuffix(path, "_test") {
			return dialectChoice{d, "the binaries that import it link only " + d + " drivers"}
		}
	}
	return dialectChoice{sqlsite.PostgreSQL, ""}
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

// settings is the configuration one package is analysed with, resolved
// from the flags and its module's configuration file when its pass starts,
// and handed down as a value: the lock analysis gets the schema and the
// dialect through its lockseq.Env, the declared order's check reads it
// here. The lower packages (lockseq, lockmodel, sqlsite, lockgraph,
// report) keep no configuration of their own, so that packages of modules
// configured differently are analysed right in one process
// (golangci-lint, analysistest, the pglockorder command), even at once.
type settings struct {
	// config is the module's configuration file (nil: none), err the
	// error reading it, which this package reports (see passConfig).
	config *Config
	err    error
	// schema returns the -schema flag's schema, else the one the
	// configuration's schema: key names (nil: none), loaded on first
	// use.
	schema func() *lockmodel.Schema
	// dialect is the package's dialect and why.
	dialect dialectChoice
}

// resolveSettings resolves the configuration of the pass's package. A
// configuration file that cannot be read decides nothing (PostgreSQL, no
// schema): the declared order's check reports the error.
func resolveSettings(pass *analysis.Pass) *settings {
	cfg, err := passConfig(pass)
	st := &settings{config: cfg, err: err, schema: sync.OnceValue(func() *lockmodel.Schema { return schemaFor(cfg) }), dialect: dialectChoice{dialect: sqlsite.PostgreSQL}}
	if err == nil {
		st.dialect = packageDialect(pass, cfg)
	}
	return st
}

// order returns the declared order that applies, or nil.
func (st *settings) order() *DeclaredOrder {
	if st.config == nil {
		return nil
	}
	return st.config.Order
}

// skipSQL returns the function that tells the lock analysis of package pkg
// which SQL is not PostgreSQL, and why ("" for PostgreSQL), counting the
// distinct statements it skips, and the package's dialect when it is not
// PostgreSQL, in report (for -v).
func (st *settings) skipSQL(pkg string, report *DialectReport) func(sql string) string {
	choice := st.dialect
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

// schemas caches the schemas named by configuration files, by the path
// they name: loading migrations costs far more than a look-up, and every
// package of a module asks for the same. It is a cache of what the files
// hold in this run, not configuration: which schema a package gets is its
// module's configuration's to say (schemaFor).
var schemas sync.Map // string -> *schemaEntry

// schemaEntry is a schema loaded once, however many packages ask at once.
type schemaEntry struct {
	once   sync.Once
	schema *lockmodel.Schema
}

// schemaFor returns the schema a package is analysed with: the schema
// flag's when it is set (the pglockorder command always sets it), else the
// one cfg's schema: key names, relative to the file's directory (nil for
// none). A schema that cannot be read is reported on stderr once and left
// out: the configuration's own errors are the declared order's to report.
func schemaFor(cfg *Config) *lockmodel.Schema {
	if schemaFlag.String() != "" {
		return schemaFlag.Schema()
	}
	if cfg == nil || cfg.Schema == "" || cfg.Schema == "none" {
		return nil
	}
	value := cfg.Schema
	if !filepath.IsAbs(value) {
		value = filepath.Join(filepath.Dir(cfg.File), value)
	}
	v, _ := schemas.LoadOrStore(value, new(schemaEntry))
	e := v.(*schemaEntry)
	e.once.Do(func() {
		var f lockmodel.SchemaFlag
		if err := f.Set(value); err != nil {
			fmt.Fprintf(os.Stderr, "pglockorder: %s: schema: %v\n", cfg.File, err)
			return
		}
		e.schema = f.Schema()
	})
	return e.schema
}
