package analyzer_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/category"
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

// TestCorpus runs the analyzer over every scenario of the corpus and
// checks the // want expectations. The whole corpus loads at once (one
// go list, shared dependencies); naming scenarios, as in
// go test -run 'TestCorpus/rowlocks', runs each named one as a subtest of
// its own.
func TestCorpus(t *testing.T) {
	downloadModules(t, corpus)
	seen := map[string]bool{}
	check := func(t *testing.T, results []*analysistest.Result) {
		for _, r := range results {
			for _, d := range r.Diagnostics {
				seen[d.Category] = true
				// Every category a finding can have is in the
				// catalogue, and the finding links to its
				// documentation.
				c, ok := category.Lookup(d.Category)
				if !ok {
					t.Errorf("%s: category %q is not in the catalogue (internal/category)", r.Pass.Fset.Position(d.Pos), d.Category)
				} else if d.URL != c.URL() {
					t.Errorf("%s: URL %q, want %q", r.Pass.Fset.Position(d.Pos), d.URL, c.URL())
				}
			}
		}
	}
	if f := flag.Lookup("test.run"); f != nil && strings.Contains(f.Value.String(), "TestCorpus/") {
		entries, err := os.ReadDir(corpus)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				t.Run(e.Name(), func(t *testing.T) {
					check(t, analysistest.Run(t, corpus, analyzer.CorpusAnalyzer, "./"+e.Name()+"/..."))
				})
			}
		}
		return
	}
	check(t, analysistest.Run(t, corpus, analyzer.CorpusAnalyzer, "./..."))
	// The corpus covers every category but the configuration's own.
	for _, id := range category.IDs() {
		if !seen[id] && id != category.DeclaredLockOrder {
			t.Errorf("no finding of category %q in the corpus", id)
		}
	}
}
