package analyzer

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// errorRecorder is an analysistest.Testing that keeps the errors.
type errorRecorder struct{ errs []string }

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestPanicIsAnError checks that a panic inside the analysis of a package
// becomes that package's analysis error, as every driver reports one,
// instead of crashing the driver.
func TestPanicIsAnError(t *testing.T) {
	testHookAnalyze = func(pass *analysis.Pass) {
		if pass.Pkg.Name() == "sametx" {
			panic("boom")
		}
	}
	defer func() { testHookAnalyze = nil }()
	var rec errorRecorder
	analysistest.Run(&rec, filepath.Join("..", "testdata", "corpus"), CorpusAnalyzer, "./sametx")
	joined := strings.Join(rec.errs, "\n")
	if !strings.Contains(joined, "internal error analysing") || !strings.Contains(joined, "boom") {
		t.Errorf("the panic was not reported as the package's error; errors:\n%s", joined)
	}
}
