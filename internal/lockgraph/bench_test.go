package lockgraph_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
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
// fact run over every edge: on distinct edges, and on a program's, where
// two of five edges repeat another's key further down (drawn again by a
// package's test variant or along another caller's path: on hatchet 19,290
// of 49,937).
func BenchmarkDedupe(b *testing.B) {
	distinct := benchGraph(270, 15000, 4)
	copies := append([]*lockgraph.Edge(nil), distinct...)
	for i, e := range distinct {
		if i%3 < 2 {
			c := *e
			c.WantedPath = []lockgraph.Frame{e.WantedPath[0]}
			c.WantedPath[0].Pos.Line += 100
			copies = append(copies, &c)
		}
	}
	for _, bench := range []struct {
		name  string
		edges []*lockgraph.Edge
	}{{"distinct", distinct}, {"copies", copies}} {
		b.Run(bench.name, func(b *testing.B) {
			for b.Loop() {
				lockgraph.Dedupe(append([]*lockgraph.Edge(nil), bench.edges...))
			}
		})
	}
}

// denseGraph is the graph of n functions that each lock their own table and
// then, in the same transaction, the tables of the k/2 functions on either
// side (modulo n): every table is on cycles of every length, the shape of
// functions calling each other inside transactions.
func denseGraph(n, k int) []*lockgraph.Edge {
	var out []*lockgraph.Edge
	for i := range n {
		for j := 1; j <= k/2; j++ {
			for _, to := range []int{(i + j) % n, (i + n - j) % n} {
				out = append(out, edge(fmt.Sprintf("svc.F%d", i),
					row(fmt.Sprintf("t%d", i), lockmodel.ForUpdate), row(fmt.Sprintf("t%d", to), lockmodel.ForUpdate)))
			}
		}
	}
	return out
}

// BenchmarkCyclesDense measures the cycle search on graphs with cycles
// everywhere at four sizes: the search stops at its budget, which grows
// with the edges, so the time per edge stays flat.
func BenchmarkCyclesDense(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			edges := denseGraph(n, 20)
			cycles := 0
			for b.Loop() {
				cycles = len(lockgraph.New(edges).Cycles(4))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(edges)), "ns/edge")
			b.ReportMetric(float64(cycles), "cycles")
		})
	}
}
