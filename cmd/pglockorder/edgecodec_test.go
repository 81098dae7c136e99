package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// TestEdgeCodecFits fails when a field is added to the edge types: the
// tabled encoding (edgecodec.go) must learn it, or the caches fall back to
// gob, several times slower on a big program.
func TestEdgeCodecFits(t *testing.T) {
	if !edgeCodecFits {
		t.Fatal("lockgraph.Edge, Frame, Lock or Class has fields the edge codec does not know: teach edgeEncoder and edgeDecoder")
	}
}

// randomEdges returns n edges whose every field is set, by reflection (a
// field added to the types is filled too), from small pools of strings and
// numbers so that edges share frames, locks and strings as a program's do.
func randomEdges(r *rand.Rand, n int) []*lockgraph.Edge {
	out := make([]*lockgraph.Edge, n)
	for i := range out {
		e := &lockgraph.Edge{}
		fill(r, reflect.ValueOf(e).Elem())
		out[i] = e
	}
	return out
}

func fill(r *rand.Rand, v reflect.Value) { fillAt(r, v, 0) }

// fillAt fills v, depth levels of slices and pointers down: a recursive type
// stops at nil.
func fillAt(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString([]string{"", "a.go", "pkg.F", "SELECT 1 FOR UPDATE", "accounts", "é\x00x"}[r.IntN(6)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.IntN(300) - 2))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(200)))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAt(r, v.Field(i), depth)
			}
		}
	case reflect.Slice:
		n := r.IntN(4)
		if n == 0 || depth > 4 {
			return // nil, as gob decodes an empty slice
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillAt(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		n := r.IntN(3)
		if n == 0 || depth > 4 {
			return // nil, as gob decodes an empty map
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k, x := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillAt(r, k, depth+1)
			fillAt(r, x, depth+1)
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillAt(r, p.Elem(), depth+1)
		v.Set(p)
	default:
		panic(fmt.Sprintf("fill: %s", v.Type()))
	}
}

// TestEdgeListRoundTrip encodes edges, alone and as a field of a cache
// entry, and checks that they decode to what was encoded.
func TestEdgeListRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 50, 500} {
		edges := randomEdges(r, n)
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(&unitPart{Edges: edges, Temps: []string{"t"}}); err != nil {
			t.Fatalf("%d edges: %v", n, err)
		}
		var got unitPart
		if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
			t.Fatalf("%d edges: %v", n, err)
		}
		if len(got.Edges) != n || n > 0 && !reflect.DeepEqual([]*lockgraph.Edge(got.Edges), edges) {
			t.Errorf("%d edges: decoded differ", n)
		}
		// Equal lists encode to equal bytes.
		a, _ := edgeList(edges).GobEncode()
		b, _ := got.Edges.GobEncode()
		if !bytes.Equal(a, b) {
			t.Errorf("%d edges: re-encoding differs", n)
		}
	}
}

// TestEdgeListShared checks that decoded paths do not share storage in a
// way that an append to one path could change another.
func TestEdgeListShared(t *testing.T) {
	edges := randomEdges(rand.New(rand.NewPCG(3, 4)), 20)
	b, err := edgeList(edges).GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	var got edgeList
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
	edges := randomEdges(rand.New(rand.NewPCG(5, 6)), 30)
	b, err := edgeList(edges).GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	for cut := range len(b) - 1 {
		var got edgeList
		if err := got.GobDecode(b[:cut]); err == nil {
			t.Fatalf("cut at %d of %d: no error", cut, len(b))
		}
	}
}

// FuzzEdgeListDecode checks that no input makes the decoder panic, and that
// whatever it accepts encodes back to a list that decodes the same.
func FuzzEdgeListDecode(f *testing.F) {
	for _, n := range []int{0, 1, 5} {
		b, _ := edgeList(randomEdges(rand.New(rand.NewPCG(uint64(n), 9)), n)).GobEncode()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got edgeList
		if got.GobDecode(b) != nil {
			return
		}
		again, err := got.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var back edgeList
		if err := back.GobDecode(again); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("re-decoding: %v", err)
		}
	})
}

// TestWithoutCopies checks that dropping the copies of edges leaves the
// graph the same edges, the same objects.
func TestWithoutCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edges := randomEdges(r, 200)
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
// same record (equal in every field), including edges that differ only in
// fields its hash does not read.
func TestWithoutCopiesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	edges := randomEdges(r, 300)
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
	var enc edgeEncoder
	for _, e := range edges {
		rec := string(enc.edge(e))
		enc.edgeBuf = enc.edgeBuf[:0]
		if !seen[rec] {
			seen[rec] = true
			want = append(want, e)
		}
	}
	got := withoutCopies(edges)
	if !slices.Equal(got, want) {
		t.Fatalf("withoutCopies kept %d edges, records tell %d apart", len(got), len(want))
	}
	if len(want) == len(edges) {
		t.Fatal("the test made no copies")
	}
}
