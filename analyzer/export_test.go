package analyzer

import (
	"go/types"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// CorpusAnalyzer runs Facts and Analyzer's reporting as one pass, for
// analysistest: it checks the facts of the analyzer under test only, and a
// corpus file's // want comments name its diagnostics and its functions'
// summaries (Facts' facts) side by side. Facts' package fact, which no
// corpus file names, is kept out of the checked facts: the pass answers its
// imports from a table of its own (runsSQL). Real drivers run Analyzer,
// which requires Facts (the go vet and golangci-lint tests of
// cmd/pglockorder cover that wiring).
var CorpusAnalyzer = &analysis.Analyzer{
	Name:      Analyzer.Name,
	Doc:       Analyzer.Doc,
	URL:       Analyzer.URL,
	FactTypes: []analysis.Fact{new(PackageInfo), new(lockseq.Summary), new(StringsFact), new(TableNameFact)},
}

// runsSQL holds the packages the corpus pass found to run SQL.
var runsSQL sync.Map // *types.Package -> bool

var runsSQLType = reflect.TypeFor[*RunsSQL]()

func init() {
	CorpusAnalyzer.Run = func(pass *analysis.Pass) (any, error) {
		importFact, exportFact := pass.ImportPackageFact, pass.ExportPackageFact
		pass.ImportPackageFact = func(pkg *types.Package, f analysis.Fact) bool {
			if reflect.TypeOf(f) == runsSQLType {
				_, ok := runsSQL.Load(pkg)
				return ok
			}
			return importFact(pkg, f)
		}
		pass.ExportPackageFact = func(f analysis.Fact) {
			if reflect.TypeOf(f) == runsSQLType {
				runsSQL.Store(pass.Pkg, true)
				return
			}
			exportFact(f)
		}
		allFacts := pass.AllPackageFacts
		pass.AllPackageFacts = func() []analysis.PackageFact {
			out := allFacts()
			for _, dep := range dependencies(pass.Pkg) {
				if _, ok := runsSQL.Load(dep); ok {
					out = append(out, analysis.PackageFact{Package: dep, Fact: new(RunsSQL)})
				}
			}
			return out
		}
		res, _ := runFacts(pass)
		facts := res.(*Result)
		if facts.Err != nil {
			return nil, facts.Err
		}
		reportPackage(pass, facts)
		return nil, nil
	}
}

// dependencies returns the packages pkg imports, directly or not.
func dependencies(pkg *types.Package) []*types.Package {
	var out []*types.Package
	seen := map[*types.Package]bool{}
	var visit func(*types.Package)
	visit = func(p *types.Package) {
		for _, imp := range p.Imports() {
			if !seen[imp] {
				seen[imp] = true
				out = append(out, imp)
				visit(imp)
			}
		}
	}
	visit(pkg)
	return out
}
