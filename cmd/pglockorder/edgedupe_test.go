package main

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
)

// TestWithoutCopies checks that dropping the copies of edges leaves the
// graph the same edges, the same objects.
func TestWithoutCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edges := lockgraphtest.RandomEdges(r, 200)
	// Copies of some edges, as a test variant's analysis makes them, and
	// edges that differ from others in their paths only.
	for i := range 100 {
		c := *edges[r.IntN(len(edges))]
		if i%3 == 0 {
			c.HeldPath = append(c.HeldPath[:len(c.HeldPath):len(c.HeldPath)], lockgraph.Frame{Func: "other"})
		}
		edges = append(edges, &c)
	}
	fewer := withoutCopies(edges)
	if len(fewer) >= len(edges) {
		t.Fatalf("no copy dropped: %d of %d", len(fewer), len(edges))
	}
	want, got := lockgraph.New(edges).Edges(), lockgraph.New(fewer).Edges()
	if len(want) != len(got) {
		t.Fatalf("graph has %d edges, want %d", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("edge %d of the graph is another object", i)
		}
	}
}

// TestWithoutCopiesExact checks withoutCopies against the definition it
// implements: an edge is dropped exactly when an earlier one encodes to the
// same bytes (equal in every field), including edges that differ only in
// fields its hash does not read.
func TestWithoutCopiesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	edges := lockgraphtest.RandomEdges(r, 300)
	for i := range 300 {
		c := *edges[r.IntN(len(edges))]
		switch i % 5 {
		case 0:
			c.Pkg += "x"
		case 1:
			if len(c.WantedPath) > 1 {
				c.WantedPath = slices.Clone(c.WantedPath)
				c.WantedPath[0].What += "x"
			}
		case 2:
			c.Gates = append(slices.Clip(c.Gates), lockgraph.Lock{Mode: 3})
		case 3:
			c.Held.Pooled = !c.Held.Pooled
		}
		edges = append(edges, &c)
	}
	var want []*lockgraph.Edge
	seen := map[string]bool{}
	for _, e := range edges {
		b, err := lockgraph.EdgeList{e}.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		rec := string(b)
		if !seen[rec] {
			seen[rec] = true
			want = append(want, e)
		}
	}
	got := withoutCopies(edges)
	if !slices.Equal(got, want) {
		t.Fatalf("withoutCopies kept %d edges, encodings tell %d apart", len(got), len(want))
	}
	if len(want) == len(edges) {
		t.Fatal("the test made no copies")
	}
}
