package lockseq

import (
	"go/token"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// TestLentVerdicts checks how calls' verdicts on lent findings combine and
// which findings WithdrawLent drops: one standing verdict keeps a finding
// that other calls judged harmless, a finding is withdrawn only by a
// verdict on its own key, and a finding with no path names no statement to
// judge.
func TestLentVerdicts(t *testing.T) {
	path := func(fn string, line int) []lockgraph.Frame {
		return []lockgraph.Frame{{Func: fn, Pos: token.Position{Filename: "a.go", Line: line, Column: 2}}}
	}
	row := lockgraph.Class{Kind: lockgraph.RowClass, Name: "items"}
	judged := RowFinding{Rule: UnorderedRows, Path: path("store.Delete", 3), Lock: lockgraph.Lock{Class: row}, Lent: true}
	kept := RowFinding{Rule: CallerOrder, Path: path("store.Move", 9), Lock: lockgraph.Lock{Class: row}, Lent: true}
	unjudged := RowFinding{Rule: UnorderedRows, Path: path("store.Purge", 20), Lock: lockgraph.Lock{Class: row}, Lent: true}
	notLent := RowFinding{Rule: UnorderedRows, Path: path("store.Delete", 3), Lock: lockgraph.Lock{Class: row}}
	noPath := RowFinding{Rule: UnorderedRows, Lock: lockgraph.Lock{Class: row}, Lent: true}

	a := &Analysis{Lent: map[string]bool{}, Rows: []RowFinding{judged, kept, unjudged, notLent, noPath}}
	a.judgeLent(judged.LentKey(), true)
	a.judgeLent(kept.LentKey(), true)
	a.judgeLent(kept.LentKey(), false) // one call leaves it standing
	a.judgeLent(kept.LentKey(), true)
	a.judgeLent("", true)
	if _, ok := a.Lent[""]; ok {
		t.Errorf("a verdict without a key was recorded")
	}
	if a.Lent[kept.LentKey()] {
		t.Errorf("a standing verdict did not win over harmless ones")
	}
	a.WithdrawLent(nil)
	var left []string
	for _, f := range a.Rows {
		fn := ""
		if len(f.Path) > 0 {
			fn = f.Path[0].Func
		}
		left = append(left, fn)
	}
	want := []string{"store.Move", "store.Purge", "store.Delete", ""}
	if len(left) != len(want) {
		t.Fatalf("left %q, want %q", left, want)
	}
	for i := range want {
		if left[i] != want[i] {
			t.Errorf("left %q, want %q", left, want)
			break
		}
	}
}
