package analyzer_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// TestConfigPerModule analyses, in one process, two modules whose
// configurations name different schemas: ../testdata/configschema, where a
// foreign key makes a deadlock, and ../testdata/confignofk, the same code
// against a schema without it. Each must be analysed with its own schema,
// whichever comes first and when both run at once (under -race, this also
// checks that the lock model and the lock analysis share no configuration
// between passes). When the schema was the lock model's, set by the first
// configuration read, the second module got the first's.
func TestConfigPerModule(t *testing.T) {
	dirs := []string{
		filepath.Join("..", "testdata", "configschema"),
		filepath.Join("..", "testdata", "confignofk"),
	}
	for _, order := range [][]string{{dirs[0], dirs[1]}, {dirs[1], dirs[0]}} {
		for _, dir := range order {
			analysistest.Run(t, dir, analyzer.CorpusAnalyzer, "./...")
		}
	}
	t.Run("concurrent", func(t *testing.T) {
		for _, dir := range dirs {
			t.Run(filepath.Base(dir), func(t *testing.T) {
				t.Parallel()
				analysistest.Run(t, dir, analyzer.CorpusAnalyzer, "./...")
			})
		}
	})
}
