package analyzer_test

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// TestRelatedPositions checks that every finding carries the steps of its
// paths as related information: one per frame the message shows, each at
// the position the message gives for it (or at the finding's own), so that go vet -json, SARIF and
// editors need not read positions back from the text.
func TestRelatedPositions(t *testing.T) {
	downloadModules(t, corpus)
	results := analysistest.Run(t, corpus, analyzer.CorpusAnalyzer, "./sametx", "./rowlocks", "./advisory")
	checked := map[string]int{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if d.Category == analyzer.CategoryIgnore {
				continue
			}
			if len(d.Related) == 0 {
				t.Errorf("%s: %s finding without related positions:\n%s", r.Pass.Fset.Position(d.Pos), d.Category, d.Message)
				continue
			}
			for _, rel := range d.Related {
				p := r.Pass.Fset.Position(rel.Pos)
				if rel.Message == "" {
					t.Errorf("%s: related position %s without a message", r.Pass.Fset.Position(d.Pos), p)
				}
				if rel.Pos != d.Pos && !mentions(d.Message, fmt.Sprintf(".go:%d:%d", p.Line, p.Column)) {
					t.Errorf("%s: related position %s (%s) is not a step the message shows:\n%s",
						r.Pass.Fset.Position(d.Pos), p, rel.Message, d.Message)
				}
			}
			checked[d.Category]++
		}
	}
	for _, cat := range []string{"lock-order", "unordered-row-lock", "caller-row-order", "loop-lock-order"} {
		if checked[cat] == 0 {
			t.Errorf("no %s finding checked: the test packages no longer cover it", cat)
		}
	}
}

// mentions reports whether msg shows the position suffix at, not followed
// by another digit (":2" is not ":23").
func mentions(msg, at string) bool {
	for i := strings.Index(msg, at); i >= 0; {
		end := i + len(at)
		if end == len(msg) || msg[end] < '0' || msg[end] > '9' {
			return true
		}
		j := strings.Index(msg[end:], at)
		if j < 0 {
			return false
		}
		i = end + j
	}
	return false
}
