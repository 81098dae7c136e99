package sqlsite

import (
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestStatementHoles checks the text of a rebuilt statement whose table and
// column are Go values: constants render in place, a parameter makes a
// template that a caller binds, and a value computed at run time makes the
// text unknown, with the reason.
func TestStatementHoles(t *testing.T) {
	const src = `package m

import "os"

const table = "flights"

func helper(tbl, col string) { _, _ = tbl, col }

func env() string { return os.Getenv("T") }
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
	helper := pkg.Func("helper")
	tbl, col := helper.Params[0], helper.Params[1]
	env := pkg.Func("env")
	var getenv ssa.Value
	for _, b := range env.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(*ssa.Call); ok {
				getenv = c
			}
		}
	}
	if getenv == nil {
		t.Fatal("no call in env")
	}
	// Parameters: a template over both, bound by a caller's constants.
	st := &statement{verb: "UPDATE", where: []string{"id = ?"}}
	st.table, st.set = st.name(tbl), st.name(col)
	text, ok := st.sql()
	if !ok {
		t.Fatal("statement with holes does not render")
	}
	got := Resolve(st.textValue(text, helper))
	if got.Unknown || len(got.SQL) != 0 || len(got.Templates) != 1 {
		t.Fatalf("parameters: %+v, want one template", got)
	}
	bound := Bind(got.Templates[0], []ssa.Value{constValueOf("hotels"), constValueOf("rooms_left")})
	if want := []string{"UPDATE hotels SET rooms_left = rooms_left WHERE (id = ?)"}; !slices.Equal(bound.SQL, want) {
		t.Errorf("bound: %q, want %q", bound.SQL, want)
	}

	// A constant: no hole, one text.
	st = &statement{verb: "DELETE"}
	st.table = st.name(constValueOf("jobs j"))
	text, _ = st.sql()
	if got := Resolve(st.textValue(text, helper)); !slices.Equal(got.SQL, []string{"DELETE FROM jobs"}) || len(st.holes) != 0 {
		t.Errorf("constant table: %+v, holes %d", got, len(st.holes))
	}

	// A value computed at run time: unknown, with the reason.
	st = &statement{verb: "SELECT", suffix: []string{"FOR UPDATE"}}
	st.table = st.name(getenv)
	text, _ = st.sql()
	got = Resolve(st.textValue(text, env))
	if !got.Unknown || len(got.SQL) != 0 || got.Why != "the result of os.Getenv" {
		t.Errorf("run-time table: %+v, want unknown, the result of os.Getenv", got)
	}
}

// constValueOf is a string constant as SSA holds one.
func constValueOf(s string) ssa.Value {
	return ssa.NewConst(constant.MakeString(s), types.Typ[types.String])
}
