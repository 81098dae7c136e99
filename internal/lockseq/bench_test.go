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

// dispatchSource is a package of impls types implementing one Store
// interface (each locking one table), and n functions that call the
// interface's two methods in a transaction: every call has impls possible
// callees.
func dispatchSource(impls, n int) string {
	var b strings.Builder
	b.WriteString("package p\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n)\n")
	b.WriteString("\ntype Store interface {\n\tLockA(ctx context.Context, tx *sql.Tx, id int64) error\n\tLockB(ctx context.Context, tx *sql.Tx, id int64) error\n}\n")
	for i := range impls {
		fmt.Fprintf(&b, `
type store%[1]d struct{}

func (store%[1]d) LockA(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE a%[1]d SET n = n + 1 WHERE id = $1", id)
	return err
}

func (store%[1]d) LockB(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE b%[1]d SET n = n + 1 WHERE id = $1", id)
	return err
}
`, i)
	}
	for i := range n {
		fmt.Fprintf(&b, `
func Op%[1]d(ctx context.Context, db *sql.DB, s Store, id int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.LockA(ctx, tx, id); err != nil {
		return err
	}
	if err := s.LockB(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}
`, i)
	}
	return b.String()
}

// BenchmarkDispatch measures resolving calls through an interface with 1, 4
// and 8 implementations (the bound) and more (not followed): the cost of
// the class-hierarchy call graph per call.
func BenchmarkDispatch(b *testing.B) {
	const n = 200
	for _, impls := range []int{1, 4, 8, 16} {
		b.Run(fmt.Sprintf("impls=%d", impls), func(b *testing.B) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", dispatchSource(impls, n), parser.SkipObjectResolution)
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
				}
			}
			for _, t := range pkg.Members {
				if t, ok := t.(*ssa.Type); ok {
					ms := pkg.Prog.MethodSets.MethodSet(t.Type())
					for i := range ms.Len() {
						if fn := pkg.Prog.MethodValue(ms.At(i)); fn != nil {
							fns = append(fns, fn)
						}
					}
				}
			}
			for b.Loop() {
				an := lockseq.New(lockseq.Env{Fset: fset})
				for _, fn := range fns {
					an.Summary(fn)
				}
				if got := an.Dispatch.Calls; got != 2*n {
					b.Fatalf("%d calls through the interface, want %d", got, 2*n)
				}
				// Each caller holds every implementation's LockA
				// table while it waits for every LockB table.
				if impls <= lockseq.MaxImpls && len(an.Edges) < n*impls*impls {
					b.Fatalf("%d edges, want at least %d", len(an.Edges), n*impls*impls)
				}
				if impls > lockseq.MaxImpls && an.Dispatch.TooMany != 2*n {
					b.Fatalf("%d calls not followed, want %d", an.Dispatch.TooMany, 2*n)
				}
			}
			b.ReportMetric(float64(2*n)*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
