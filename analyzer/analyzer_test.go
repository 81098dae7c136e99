package analyzer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/analyzer/category"
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
	seen := map[string]bool{}
	for _, r := range analysistest.Run(t, corpus, analyzer.Analyzer, "./...") {
		for _, d := range r.Diagnostics {
			seen[d.Category] = true
			// Every category a finding can have is in the catalogue,
			// and the finding links to its documentation.
			c, ok := category.Lookup(d.Category)
			if !ok {
				t.Errorf("%s: category %q is not in the catalogue (analyzer/category)", r.Pass.Fset.Position(d.Pos), d.Category)
			} else if d.URL != c.URL() {
				t.Errorf("%s: URL %q, want %q", r.Pass.Fset.Position(d.Pos), d.URL, c.URL())
			}
		}
	}
	// The corpus covers every category but the configuration's own.
	for _, id := range category.IDs() {
		if !seen[id] && id != category.DeclaredLockOrder {
			t.Errorf("no finding of category %q in the corpus", id)
		}
	}
}
