package sqlsite_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

const bindSrc = `package p

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

func sink(q string) {}

type shard int

func (s shard) String() string { return "s" }

func lockRow(table string) { sink(fmt.Sprintf("SELECT * FROM %s WHERE id = $1 FOR UPDATE", table)) }

func limit(table string, n int) { sink("SELECT * FROM " + table + fmt.Sprintf(" LIMIT %d", int64(n))) }

func execf(format string, args ...any) { sink(fmt.Sprintf(format, args...)) }

func lockWhere(table string, conds ...string) {
	sink("SELECT id FROM " + table + " WHERE " + strings.Join(conds, " AND ") + " FOR UPDATE")
}

func Where() { lockWhere("jobs", "queue = 'a'", "state = 'ready'") }

func WhereList() { lockWhere("jobs", []string{"id = $1"}...) }

func WhereRuntime(conds []string) { lockWhere("jobs", append(conds, "x")...) }

//go:embed sql/*.sql
var files embed.FS

func runFile(name string) {
	b, _ := fs.ReadFile(files, "sql/"+name+".sql")
	sink(string(b))
}

func runMethod(name string) {
	b, _ := files.ReadFile("sql/" + name)
	sink(string(b))
}

//go:embed sql/lock.sql
var lockBytes []byte

func EmbeddedBytes() { sink(string(lockBytes)) }

func Const() { lockRow("accounts") }

func Alternatives(b bool) {
	t := "a"
	if b {
		t = "b"
	}
	lockRow(t)
}

func Forward(table string) { lockRow(table) }

func Prefixed(suffix string) { lockRow("t_" + suffix) }

func Runtime() { lockRow(os.Getenv("T")) }

func Number() { limit("jobs", 10) }

func NumberStringer() { limit("jobs", int(shard(2))) }

func Printf() { execf("UPDATE %s SET n = %d", "counters", 1) }

func PrintfForward(args ...any) { execf("UPDATE %s SET n = 1", args...) }

func PrintfRuntime() { execf("DELETE FROM %s", os.Getenv("T")) }

func PrintfAppended() {
	xs := append([]any(nil), "t")
	execf("DELETE FROM %s", xs...)
}

func File() { runFile("lock") }

func FileMissing() { runFile("nope") }

func FileForward(name string) { runFile(name) }

func Method() { runMethod("lock.sql") }
`

// buildDir writes src and files into a directory and builds its SSA, so
// that //go:embed finds the files.
func buildDir(t *testing.T, src string, files map[string]string) *ssa.Package {
	t.Helper()
	dir := t.TempDir()
	files["p.go"] = src
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "p.go"), src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	conf := &types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, _, err := ssautil.BuildPackage(conf, fset, types.NewPackage("example.com/p", "p"), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// TestBind resolves the text a helper runs as a template and binds it at
// each caller: constants give texts, the caller's parameters give a
// template of the caller's, run-time values the reason.
func TestBind(t *testing.T) {
	pkg := buildDir(t, bindSrc, map[string]string{
		"sql/lock.sql":  "SELECT * FROM jobs FOR UPDATE",
		"sql/other.sql": "SELECT * FROM other FOR UPDATE",
		"sql/_hidden":   "ignored: names starting with _ are not embedded by a directory pattern",
	})
	template := func(helper string) sqlsite.Template {
		t.Helper()
		got := sqlsite.Resolve(onlyCall(t, pkg, helper, "sink").Args[0])
		if len(got.Templates) != 1 || got.Unknown {
			t.Fatalf("%s: Resolve = %+v, want one template", helper, got)
		}
		return got.Templates[0]
	}
	tests := []struct {
		caller, helper string
		sql            []string
		params         []int
		templates      []string
		why            string
	}{
		{caller: "Const", helper: "lockRow", sql: []string{"SELECT * FROM accounts WHERE id = $1 FOR UPDATE"}},
		{caller: "Alternatives", helper: "lockRow", sql: []string{"SELECT * FROM a WHERE id = $1 FOR UPDATE", "SELECT * FROM b WHERE id = $1 FOR UPDATE"}},
		{caller: "Forward", helper: "lockRow", templates: []string{`sprintf("SELECT * FROM %s WHERE id = $1 FOR UPDATE", p0)`}},
		{caller: "Prefixed", helper: "lockRow", templates: []string{`sprintf("SELECT * FROM %s WHERE id = $1 FOR UPDATE", "t_" + p0)`}},
		{caller: "Runtime", helper: "lockRow", why: "parameter table of p.lockRow is the result of os.Getenv"},
		{caller: "Number", helper: "limit", sql: []string{"SELECT * FROM jobs LIMIT 10"}},
		{caller: "NumberStringer", helper: "limit", sql: []string{"SELECT * FROM jobs LIMIT 2"}},
		{caller: "Printf", helper: "execf", sql: []string{"UPDATE counters SET n = 1"}},
		{caller: "PrintfForward", helper: "execf", templates: []string{`sprintf("UPDATE %s SET n = 1", p0...)`}},
		{caller: "PrintfRuntime", helper: "execf", why: "parameter args... of p.execf: argument 2 of the call is not constant: the result of os.Getenv"},
		{caller: "PrintfAppended", helper: "execf", why: "parameter args... of p.execf: the arguments of the call are a slice built at run time"},
		{caller: "Where", helper: "lockWhere", sql: []string{"SELECT id FROM jobs WHERE queue = 'a' AND state = 'ready' FOR UPDATE"}},
		{caller: "WhereList", helper: "lockWhere", sql: []string{"SELECT id FROM jobs WHERE id = $1 FOR UPDATE"}},
		{caller: "WhereRuntime", helper: "lockWhere", why: "parameter conds... of p.lockWhere: the arguments of the call are a slice built at run time"},
		{caller: "File", helper: "runFile", sql: []string{"SELECT * FROM jobs FOR UPDATE"}},
		{caller: "FileMissing", helper: "runFile", why: `no embedded file "sql/nope.sql"`},
		{caller: "FileForward", helper: "runFile", templates: []string{`file("sql/" + p0 + ".sql")`}},
		{caller: "Method", helper: "runMethod", sql: []string{"SELECT * FROM jobs FOR UPDATE"}},
	}
	for _, tt := range tests {
		t.Run(tt.caller, func(t *testing.T) {
			call := onlyCall(t, pkg, tt.caller, tt.helper)
			got := sqlsite.Bind(template(tt.helper), call.Args)
			var tmpls []string
			for _, tm := range got.Templates {
				tmpls = append(tmpls, tm.String())
			}
			if !slices.Equal(got.SQL, tt.sql) || !slices.Equal(got.Params, tt.params) || !slices.Equal(tmpls, tt.templates) ||
				got.Unknown != (tt.why != "") || got.Why != tt.why {
				t.Errorf("Bind = {SQL: %q, Params: %v, Templates: %q, Unknown: %t, Why: %q}, want {SQL: %q, Params: %v, Templates: %q, Why: %q}",
					got.SQL, got.Params, tmpls, got.Unknown, got.Why, tt.sql, tt.params, tt.templates, tt.why)
			}
		})
	}
	if got := sqlsite.Resolve(onlyCall(t, pkg, "EmbeddedBytes", "sink").Args[0]); !slices.Equal(got.SQL, []string{"SELECT * FROM jobs FOR UPDATE"}) || got.Unknown {
		t.Errorf("a //go:embed []byte variable: Resolve = %+v", got)
	}
	// The candidate files travel with the template; a file the directory
	// pattern leaves out is not one of them.
	tm := template("runFile")
	if s := tm.Root.String(); !strings.HasPrefix(s, "file(") || len(tm.Root.Files) != 2 {
		t.Errorf("runFile's template %s has %d files, want file(...) with 2", s, len(tm.Root.Files))
	}
}
