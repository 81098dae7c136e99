package lockgraph

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// TestCycleBudget checks that the search on a graph with cycles through
// every class stops within its budget, which scales with the edges, keeps
// at most its cap of cycles, and says it stopped; and that a graph whose
// edges agree on one order costs no forward search at all.
func TestCycleBudget(t *testing.T) {
	lock := func(c string) Lock { return Lock{Class: RowsOf(c), Mode: lockmodel.ForUpdate, Waits: true} }
	dense := func(n, k int) []*Edge {
		var out []*Edge
		for i := range n {
			for j := 1; j <= k/2; j++ {
				for _, to := range []int{(i + j) % n, (i + n - j) % n} {
					out = append(out, &Edge{Func: fmt.Sprintf("F%d", i), Held: lock(strconv.Itoa(i)), Wanted: lock(strconv.Itoa(to))})
				}
			}
		}
		return out
	}
	for _, n := range []int{100, 400} {
		g := New(dense(n, 30))
		cycles := g.Cycles(4)
		if !g.Truncated {
			t.Errorf("n=%d: %d cycles, search not truncated", n, len(cycles))
		}
		if g.steps > g.budget+maxPicks+len(g.edges) {
			t.Errorf("n=%d: %d steps, budget %d", n, g.steps, g.budget)
		}
		if g.found > g.maxCycles {
			t.Errorf("n=%d: kept %d cycles, cap %d", n, g.found, g.maxCycles)
		}
		if want := minSearch + searchPerEdge*len(g.edges); g.budget != want {
			t.Errorf("n=%d: budget %d, want %d", n, g.budget, want)
		}
	}
	// One global order (t0 before t1 before ...): no cycle, no truncation,
	// and the steps are those of the walk back from each class.
	var ordered []*Edge
	for i := range 300 {
		for j := i + 1; j < 300 && j < i+20; j++ {
			ordered = append(ordered, &Edge{Func: fmt.Sprintf("F%d", i), Held: lock(fmt.Sprintf("%03d", i)), Wanted: lock(fmt.Sprintf("%03d", j))})
		}
	}
	g := New(ordered)
	if c := g.Cycles(4); len(c) != 0 || g.Truncated {
		t.Fatalf("%d cycles, truncated %v, on one global order", len(c), g.Truncated)
	}
	if g.steps > 4*len(g.edges) {
		t.Errorf("%d steps for %d edges in one global order: the forward search ran", g.steps, len(g.edges))
	}
}
