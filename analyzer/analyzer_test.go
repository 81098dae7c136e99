package analyzer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// corpus is the analysistest module: real pgx, real database/sql.
var corpus = filepath.Join("..", "testdata", "corpus")

// downloadModules makes the corpus module's dependencies available: the
// analysistest driver loads it with GOPROXY=off.
func downloadModules(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in %s: %v\n%s", dir, err, out)
	}
}

func TestCorpus(t *testing.T) {
	downloadModules(t, corpus)
	analysistest.Run(t, corpus, analyzer.Analyzer, "./...")
}
