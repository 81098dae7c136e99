package lockgraph_test

import (
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// TestCycleBreakers checks that a report names every function that goes
// against the order the others keep, not only the one it shows as a path:
// three functions lock orders then stock, two lock stock then orders, and
// the one not shown must still be named (Cycle.Breakers). A blind test
// found the second breaker named nowhere, when the first was a
// cross-connection wait chosen for its severity.
func TestCycleBreakers(t *testing.T) {
	orders, stock := row("orders", lockmodel.ForUpdate), row("stock", lockmodel.ForNoKeyUpdate)
	edges := []*lockgraph.Edge{
		edge("app.Allocate", orders, stock),
		edge("app.Cancel", orders, stock),
		edge("app.Ship", orders, stock),
		crossConn(edge("app.ShipNote", stock, orders)),
		edge("app.CycleCount", stock, orders),
	}
	cycles := lockgraph.New(edges).Cycles(4)
	if len(cycles) != 1 {
		t.Fatalf("got %d cycles, want 1: %v", len(cycles), summarize(cycles))
	}
	c := cycles[0]
	if c.Breaker < 0 {
		t.Fatalf("no breaker: %v", summarize(cycles))
	}
	named := append([]string{c.Steps[c.Breaker].Func}, c.Breakers...)
	slices.Sort(named)
	if want := []string{"app.CycleCount", "app.ShipNote"}; !slices.Equal(named, want) {
		t.Errorf("the breaker and Breakers name %v, want %v", named, want)
	}
	if slices.Contains(c.Breakers, c.Steps[c.Breaker].Func) {
		t.Errorf("Breakers %v repeats the breaker's own function", c.Breakers)
	}
}
