package lockgraph_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pglockorder/pglockorder/analyzer/lockgraph"
	"github.com/pglockorder/pglockorder/analyzer/lockmodel"
)

// benchGraph builds the edges of a program whose transactions lock rows of
// tables in one global order, as most code does, with a given number of
// inverted pairs on tables of their own.
func benchGraph(tables, edges, inversions int) []*lockgraph.Edge {
	rng := rand.New(rand.NewPCG(1, 2))
	modes := []lockmodel.Mode{lockmodel.ForUpdate, lockmodel.ForNoKeyUpdate}
	out := make([]*lockgraph.Edge, 0, edges+2*inversions)
	for i := range edges {
		a := rng.IntN(tables - 1)
		b := a + 1 + rng.IntN(tables-a-1)
		out = append(out, edge(fmt.Sprintf("svc.Op%d", i),
			row(fmt.Sprintf("t%d", a), modes[rng.IntN(2)]), row(fmt.Sprintf("t%d", b), modes[rng.IntN(2)])))
	}
	for i := range inversions {
		x, y := fmt.Sprintf("plant_x_%d", i), fmt.Sprintf("plant_y_%d", i)
		out = append(out,
			edge(fmt.Sprintf("svc.Forward%d", i), row(x, lockmodel.ForUpdate), row(y, lockmodel.ForNoKeyUpdate)),
			edge(fmt.Sprintf("svc.Backward%d", i), row(y, lockmodel.ForUpdate), row(x, lockmodel.ForNoKeyUpdate)))
	}
	return out
}

// BenchmarkCycles measures the cycle search on graphs the size of the
// synthetic corpora (cmd/pglockorder-corpus): the medium one has about
// 15,000 edges over 270 tables.
func BenchmarkCycles(b *testing.B) {
	for _, size := range []struct{ tables, edges int }{{30, 1000}, {270, 15000}, {720, 60000}} {
		b.Run(fmt.Sprintf("tables=%d/edges=%d", size.tables, size.edges), func(b *testing.B) {
			const planted = 4
			edges := benchGraph(size.tables, size.edges, planted)
			for b.Loop() {
				g := lockgraph.New(edges)
				if n := len(g.Cycles(4)); n != planted {
					b.Fatalf("%d cycles, want the %d planted", n, planted)
				}
			}
		})
	}
}

// BenchmarkDedupe measures the de-duplication the driver and the package
// fact run over every edge.
func BenchmarkDedupe(b *testing.B) {
	edges := benchGraph(270, 15000, 4)
	for b.Loop() {
		lockgraph.Dedupe(append([]*lockgraph.Edge(nil), edges...))
	}
}
