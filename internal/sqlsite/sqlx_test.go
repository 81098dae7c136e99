package sqlsite

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestSqlxLikeIndex checks which interface methods are taken for sqlx's:
// a query after a destination or a context, never a cache's key.
func TestSqlxLikeIndex(t *testing.T) {
	const src = `package p

import "context"

type I interface {
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	Select(dest any, query string, args ...any) error
	MustExecContext(ctx context.Context, query string, args ...any)
	Get(ctx context.Context, key string) (string, error)
	Select2(dest any, query string) error
	NamedExec(query string, arg any) error
	GetContextWrong(ctx context.Context, dest int, query string) error
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	iface := pkg.Scope().Lookup("I").Type().Underlying().(*types.Interface)
	want := map[string]int{
		"GetContext": 2, "Select": 1, "MustExecContext": 1, "Get": -1, "Select2": -1, "NamedExec": 0, "GetContextWrong": -1,
	}
	for m := range iface.Methods() {
		if got := sqlxLikeIndex(m); got != want[m.Name()] {
			t.Errorf("sqlxLikeIndex(%s) = %d, want %d", m.Name(), got, want[m.Name()])
		}
	}
}
