package analyzer

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// StringsFact is the fact of an exported package-level []string variable
// initialised with constants (var RouteColumns = []string{"id", "status"}):
// other packages splice it into SQL text (strings.Join(sqlq.RouteColumns,
// ", ")), and their SSA has no initialiser to read it from.
type StringsFact struct {
	Elems []string
}

// AFact marks StringsFact as an analysis fact.
func (*StringsFact) AFact() {}

func (f *StringsFact) String() string { return fmt.Sprintf("strings%q", f.Elems) }

// exportStrings exports the StringsFact of each exported []string variable
// of the package that is initialised with constants.
func exportStrings(pass *analysis.Pass, pkg *ssa.Package) {
	for _, mem := range pkg.Members {
		g, ok := mem.(*ssa.Global)
		if !ok {
			continue
		}
		v, ok := g.Object().(*types.Var) // nil for init$guard
		if !ok || !v.Exported() {
			continue
		}
		if s, ok := v.Type().Underlying().(*types.Slice); !ok || !types.Identical(s.Elem().Underlying(), types.Typ[types.String]) {
			continue
		}
		if elems, ok := sqlsite.GlobalStrings(g); ok {
			pass.ExportObjectFact(v, &StringsFact{Elems: elems})
		}
	}
}

// importedStrings returns the lister of other packages' []string variables
// (lockseq.Env.Strings), from their facts.
func importedStrings(pass *analysis.Pass) func(*types.Var) ([]string, bool) {
	return func(v *types.Var) ([]string, bool) {
		var f StringsFact
		if pass.ImportObjectFact(v, &f) {
			return f.Elems, true
		}
		return nil, false
	}
}

// TableNameFact is the fact of a model type's TableName method that returns
// a constant (GORM's and xorm's way to name a model's table), and of a
// go-jet generated table variable (table.Orders, named by its initialiser):
// the packages that query the model or the table read the name from it,
// since their SSA has no body for a method or initialiser declared
// elsewhere.
type TableNameFact struct {
	Name string
}

// AFact marks TableNameFact as an analysis fact.
func (*TableNameFact) AFact() {}

func (f *TableNameFact) String() string { return fmt.Sprintf("table(%q)", f.Name) }

// exportTableNames exports the TableNameFact of each TableName method of
// the package's named types (value or pointer receiver) that returns a
// constant, and of each exported go-jet table variable whose name is a
// constant.
func exportTableNames(pass *analysis.Pass, pkg *ssa.Package) {
	for _, mem := range pkg.Members {
		if g, ok := mem.(*ssa.Global); ok {
			if v, ok := g.Object().(*types.Var); ok && v.Exported() {
				if name, ok := sqlsite.JetTableName(g); ok {
					pass.ExportObjectFact(v, &TableNameFact{Name: name})
				}
			}
			continue
		}
		t, ok := mem.(*ssa.Type)
		if !ok || types.IsInterface(t.Type()) {
			continue // an interface's TableName has no body (type Tabler interface{ TableName() string })
		}
		for _, recv := range []types.Type{t.Type(), types.NewPointer(t.Type())} {
			sel := pkg.Prog.MethodSets.MethodSet(recv).Lookup(pass.Pkg, "TableName")
			if sel == nil {
				continue
			}
			obj, ok := sel.Obj().(*types.Func)
			if !ok || obj.Pkg() != pass.Pkg || len(sel.Index()) != 1 {
				continue // promoted from an embedded type: its own package says
			}
			if name, ok := sqlsite.ConstantResult(pkg.Prog.MethodValue(sel)); ok {
				pass.ExportObjectFact(obj, &TableNameFact{Name: name})
			}
			break
		}
	}
}

// importedTableName returns the table name of another package's TableName
// method (lockseq.Env.TableName), from its fact.
func importedTableName(pass *analysis.Pass) func(types.Object) (string, bool) {
	return func(obj types.Object) (string, bool) {
		var f TableNameFact
		if pass.ImportObjectFact(obj, &f) {
			return f.Name, true
		}
		return "", false
	}
}
