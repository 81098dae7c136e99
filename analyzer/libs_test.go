package analyzer_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// libs is the analysistest module of code written with ORMs and query
// builders, compiled against the real libraries at released versions (see
// its go.mod): sqlx, GORM, bun, squirrel.
var libs = filepath.Join("..", "testdata", "libs")

// TestLibraries checks, for each library, a lock-order inversion written
// with it and the fixed form, which must be silent.
func TestLibraries(t *testing.T) {
	downloadModules(t, libs)
	analysistest.Run(t, libs, analyzer.Analyzer, "./...")
}
