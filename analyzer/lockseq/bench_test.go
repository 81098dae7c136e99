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

	"github.com/pglockorder/pglockorder/analyzer/lockseq"
)

// benchSource is a database/sql package of n transactions, each locking
// rows of two tables in increasing order through helpers that take the
// transaction, the shape of code most lock sequences come from.
func benchSource(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n)\n")
	for i := range 20 {
		fmt.Fprintf(&b, `
func lock%[1]d(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE t%[1]d SET n = n + 1 WHERE id = $1", id)
	return err
}
`, i)
	}
	for i := range n {
		a, c := i%19, i%19+1+i%(19-i%19)
		fmt.Fprintf(&b, `
func Op%[1]d(ctx context.Context, db *sql.DB, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var name string
	if err := tx.QueryRowContext(ctx, "SELECT name FROM t%[2]d WHERE id = $1 FOR UPDATE", id).Scan(&name); err != nil {
		return err
	}
	if err := lock%[3]d(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}
`, i, a, c)
	}
	return b.String()
}

// BenchmarkSummaries measures building the lock sequences and summaries
// of a package's functions from its SSA (the SQL is parsed once and cached,
// as in a real run; BenchmarkAnalyze in lockmodel measures that part).
func BenchmarkSummaries(b *testing.B) {
	const n = 500
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", benchSource(n), parser.SkipObjectResolution)
	if err != nil {
		b.Fatal(err)
	}
	conf := &types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, _, err := ssautil.BuildPackage(conf, fset, types.NewPackage("example.com/p", "p"), []*ast.File{f}, 0)
	if err != nil {
		b.Fatal(err)
	}
	var fns []*ssa.Function
	for _, m := range pkg.Members {
		if fn, ok := m.(*ssa.Function); ok {
			fns = append(fns, fn)
			fns = append(fns, fn.AnonFuncs...)
		}
	}
	for b.Loop() {
		an := lockseq.New(lockseq.Env{Fset: fset})
		for _, fn := range fns {
			an.Summary(fn)
		}
		if len(an.Edges) < n {
			b.Fatalf("%d edges from %d transactions that each lock two tables", len(an.Edges), n)
		}
	}
	b.ReportMetric(float64(n+20)*float64(b.N)/b.Elapsed().Seconds(), "funcs/s")
}
