package lockseq_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// multiStatementSource is a function that runs one SQL string of n
// statements, each locking a table of its own, in a transaction.
func multiStatementSource(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n)\n\n")
	b.WriteString("func Big(ctx context.Context, db *sql.DB) error {\n\ttx, err := db.BeginTx(ctx, nil)\n\tif err != nil {\n\t\treturn err\n\t}\n\tdefer tx.Rollback()\n\t_, err = tx.ExecContext(ctx, `")
	for i := range n {
		fmt.Fprintf(&b, "UPDATE t%d SET n = n + 1 WHERE id = 1;\n", i)
	}
	b.WriteString("`)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn tx.Commit()\n}\n")
	return b.String()
}

// callWebSource is n functions that each lock a table of their own in the
// caller's transaction and call two others, all inside transactions begun
// by n entry points: every function reaches every other.
func callWebSource(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n)\n\n")
	for i := range n {
		fmt.Fprintf(&b, `func F%[1]d(ctx context.Context, tx *sql.Tx, d int) error {
	if _, err := tx.ExecContext(ctx, "UPDATE t%[1]d SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if d > 0 {
		if err := F%[2]d(ctx, tx, d-1); err != nil {
			return err
		}
		return F%[3]d(ctx, tx, d-1)
	}
	return nil
}

func Run%[1]d(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := F%[1]d(ctx, tx, 3); err != nil {
		return err
	}
	return tx.Commit()
}

`, i, (i+1)%n, (i*7+3)%n)
	}
	return b.String()
}

// sharedFset and sharedImporter let the benchmarks type-check
// database/sql from source once, not once per input.
var (
	sharedFset     = token.NewFileSet()
	sharedImporter = importer.ForCompiler(sharedFset, "source", nil)
)

// buildFuncs builds the SSA of one source file and lists its functions.
func buildFuncs(tb testing.TB, src string) (*token.FileSet, []*ssa.Function) {
	tb.Helper()
	fset := sharedFset
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		tb.Fatal(err)
	}
	conf := &types.Config{Importer: sharedImporter}
	pkg, _, err := ssautil.BuildPackage(conf, fset, types.NewPackage("example.com/p", "p"), []*ast.File{f}, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var fns []*ssa.Function
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			fns = append(fns, pkg.Func(fd.Name.Name))
		}
	}
	return fset, fns
}

// summarise analyses every function and returns the analysis.
func summarise(fset *token.FileSet, fns []*ssa.Function) *lockseq.Analysis {
	an := lockseq.New(lockseq.Env{Fset: fset})
	for _, fn := range fns {
		an.Summary(fn)
	}
	return an
}

// BenchmarkPathological measures the summaries of the two inputs that
// blew up (issue 14) at four sizes each: one string of n statements, and n
// functions calling each other inside transactions. Time per statement or
// function must stay flat as n grows: the analysis bounds the locks one
// point holds and the events one summary keeps.
func BenchmarkPathological(b *testing.B) {
	for _, tc := range []struct {
		name  string
		src   func(int) string
		sizes []int
	}{
		{"statements", multiStatementSource, []int{500, 1000, 2000, 5000}},
		{"calls", callWebSource, []int{250, 500, 1000, 2000}},
	} {
		for _, n := range tc.sizes {
			b.Run(fmt.Sprintf("%s=%d", tc.name, n), func(b *testing.B) {
				fset, fns := buildFuncs(b, tc.src(n))
				edges := 0
				for b.Loop() {
					edges = len(summarise(fset, fns).Edges)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/unit")
				b.ReportMetric(float64(edges), "edges")
			})
		}
	}
}

// TestPathologicalBounded checks that the inputs of BenchmarkPathological
// stay bounded: summaries keep at most 1,024 events, the functions that
// reached a bound are named, and the edges of one string of statements
// stop growing with it (unbounded, they grow with its square).
func TestPathologicalBounded(t *testing.T) {
	edgesAt := map[int]int{}
	for _, n := range []int{1000, 2000} {
		an := summarise(buildFuncs(t, multiStatementSource(n)))
		if len(an.Limits) == 0 {
			t.Errorf("%d statements: no function reported reaching a bound", n)
		}
		edgesAt[n] = len(an.Edges)
	}
	if edgesAt[2000] > edgesAt[1000] || edgesAt[1000] > 128*128 {
		t.Errorf("edges of one string: %d at 1000 statements, %d at 2000; want at most %d, not growing", edgesAt[1000], edgesAt[2000], 128*128)
	}

	fset, fns := buildFuncs(t, callWebSource(120))
	an := summarise(fset, fns)
	for _, fn := range fns {
		if s := an.Summary(fn); s != nil && len(s.Events) > 1024 {
			t.Errorf("%s keeps %d events", fn.Name(), len(s.Events))
		}
	}
	if len(an.Limits) == 0 {
		t.Errorf("functions calling each other: no function reported reaching a bound")
	}
}
