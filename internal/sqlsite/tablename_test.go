package sqlsite

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

func TestConstantResult(t *testing.T) {
	const src = `package m

type A struct{}

func (A) TableName() string { return "a_rows" }

type B struct{}

func (B) TableName() string { return "b_" + "rows" }

type C struct{ legacy bool }

func (c C) TableName() string {
	if c.legacy {
		return "c_old"
	}
	return "c_rows"
}

type D struct{ name string }

func (d D) TableName() string { return d.name }

type E struct{}

func (E) TableName() string {
	if debug {
		return "e_rows"
	}
	return "e_rows"
}

var debug bool
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "m.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("m", "m"), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		typ  string
		want string
		ok   bool
	}{
		{"A", "a_rows", true},
		{"B", "b_rows", true}, // a constant expression
		{"C", "", false},      // two names
		{"D", "", false},      // not a constant
		{"E", "e_rows", true}, // one name on every path
	} {
		named := pkg.Pkg.Scope().Lookup(tt.typ).Type()
		sel := pkg.Prog.MethodSets.MethodSet(named).Lookup(pkg.Pkg, "TableName")
		got, ok := ConstantResult(pkg.Prog.MethodValue(sel))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s.TableName: ConstantResult = %q, %v; want %q, %v", tt.typ, got, ok, tt.want, tt.ok)
		}
	}
}
