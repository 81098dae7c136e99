package analyzer_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// TestConfigSchema runs the analyzer as go vet does on a module whose
// .pglockorder.yaml names its schema: the deadlock that exists only through
// a foreign key is reported without a -schema flag.
func TestConfigSchema(t *testing.T) {
	analysistest.Run(t, filepath.Join("..", "testdata", "configschema"), analyzer.CorpusAnalyzer, "./...")
}
