package lockgraph_test

import (
	"bytes"
	"encoding/gob"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
)

// TestEdgeCodecFits fails when a field is added to the edge types: the
// tabled encoding (codec.go) must learn it, or the caches fall back to
// gob, several times slower on a big program.
func TestEdgeCodecFits(t *testing.T) {
	if !lockgraph.CodecComplete() {
		t.Fatal("lockgraph.Edge, Frame, Lock or Class has fields the edge codec does not know: teach edgeEncoder and edgeDecoder")
	}
}

// entry is a struct with an edge list among other fields, as a cache entry
// or a package fact is.
type entry struct {
	Edges lockgraph.EdgeList
	Temps []string
}

// TestEdgeListRoundTrip encodes edges, alone and as a field of a struct, and checks that they decode to what was encoded.
func TestEdgeListRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 50, 500} {
		edges := lockgraphtest.RandomEdges(r, n)
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(&entry{Edges: edges, Temps: []string{"t"}}); err != nil {
			t.Fatalf("%d edges: %v", n, err)
		}
		var got entry
		if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
			t.Fatalf("%d edges: %v", n, err)
		}
		if len(got.Edges) != n || n > 0 && !reflect.DeepEqual([]*lockgraph.Edge(got.Edges), edges) {
			t.Errorf("%d edges: decoded differ", n)
		}
		// Equal lists encode to equal bytes.
		a, _ := lockgraph.EdgeList(edges).GobEncode()
		b, _ := got.Edges.GobEncode()
		if !bytes.Equal(a, b) {
			t.Errorf("%d edges: re-encoding differs", n)
		}
	}
}

// TestEdgeListShared checks that decoded paths do not share storage in a
// way that an append to one path could change another.
func TestEdgeListShared(t *testing.T) {
	edges := lockgraphtest.RandomEdges(rand.New(rand.NewPCG(3, 4)), 20)
	b, err := lockgraph.EdgeList(edges).GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	var got lockgraph.EdgeList
	if err := got.GobDecode(b); err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		e.HeldPath = append(e.HeldPath, lockgraph.Frame{Func: "appended"})
		e.Gates = append(e.Gates, lockgraph.Lock{Mode: 1})
	}
	for i, e := range got {
		held := e.HeldPath[:len(e.HeldPath)-1]
		if !reflect.DeepEqual(e.WantedPath, edges[i].WantedPath) || len(held) != len(edges[i].HeldPath) || len(held) > 0 && !reflect.DeepEqual(held, edges[i].HeldPath) {
			t.Fatalf("edge %d: appending to other paths changed its wanted path", i)
		}
	}
}

// TestEdgeListDamaged checks that a damaged encoding is an error, never a
// panic or a wrong list.
func TestEdgeListDamaged(t *testing.T) {
	edges := lockgraphtest.RandomEdges(rand.New(rand.NewPCG(5, 6)), 30)
	b, err := lockgraph.EdgeList(edges).GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	for cut := range len(b) - 1 {
		var got lockgraph.EdgeList
		if err := got.GobDecode(b[:cut]); err == nil {
			t.Fatalf("cut at %d of %d: no error", cut, len(b))
		}
	}
}

// FuzzEdgeListDecode checks that no input makes the decoder panic, and that
// whatever it accepts encodes back to a list that decodes the same.
func FuzzEdgeListDecode(f *testing.F) {
	for _, n := range []int{0, 1, 5} {
		b, _ := lockgraph.EdgeList(lockgraphtest.RandomEdges(rand.New(rand.NewPCG(uint64(n), 9)), n)).GobEncode()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got lockgraph.EdgeList
		if got.GobDecode(b) != nil {
			return
		}
		again, err := got.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var back lockgraph.EdgeList
		if err := back.GobDecode(again); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("re-decoding: %v", err)
		}
	})
}
