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
