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

// TestForeignKeyCovered runs the analyzer on a module whose statements take
// foreign-key checks on parent rows their transaction may hold already: a
// check on a row held FOR UPDATE is no lock of its own (no upgrade, no
// order), a check on any other row is.
func TestForeignKeyCovered(t *testing.T) {
	analysistest.Run(t, filepath.Join("..", "testdata", "fkcovered"), analyzer.CorpusAnalyzer, "./...")
}

// TestCascadeGate runs the analyzer on a module whose DELETE cascades to a
// parent's children: the deleted row, locked before the cascades run, is a
// gate of their order, and a DELETE of the children without it is not.
func TestCascadeGate(t *testing.T) {
	analysistest.Run(t, filepath.Join("..", "testdata", "fkcascade"), analyzer.CorpusAnalyzer, "./...")
}
