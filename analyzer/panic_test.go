package analyzer

import (
	"errors"
	"fmt"
	"go/types"
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

// TestPanicErrorIsInternal checks that a pass's panic is marked as
// ErrInternal, with its stack: the command prints the stack for the bug
// report and does not count its lines as more errors of the package.
func TestPanicErrorIsInternal(t *testing.T) {
	var (
		res any
		err error
	)
	func() {
		defer recoverAsError(&analysis.Pass{Pkg: types.NewPackage("example.com/p", "p")}, &res, &err)
		panic("boom")
	}()
	if !errors.Is(err, ErrInternal) {
		t.Fatalf("the panic's error %v is not ErrInternal", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "example.com/p") || !strings.Contains(msg, "boom") || !strings.Contains(msg, "TestPanicErrorIsInternal") {
		t.Errorf("the error does not name the package, the panic and its stack:\n%s", msg)
	}
}
