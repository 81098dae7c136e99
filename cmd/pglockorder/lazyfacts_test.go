package main

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// TestLazyGroupDecodedAgain checks that a restored package's facts decode
// to the values encoded whichever is read first and however often the
// group is decoded again (its values not read are held weakly, and a
// collection drops them), and that a fact read is one value from then on,
// the one the group says it holds.
func TestLazyGroupDecodedAgain(t *testing.T) {
	typ := reflect.TypeFor[*lockseq.Summary]()
	r := rand.New(rand.NewPCG(3, 9))
	const n = 12
	var (
		enc  compactEncoder
		want []analysis.Fact
	)
	// As in an entry, a value decoded at once comes first: the group's
	// decoder starts with its tables filled, and a decoding that
	// extended them in place would leave the next one tables that do
	// not match its position.
	eager := reflect.New(typ.Elem())
	lockgraphtest.Fill(r, eager.Elem())
	if err := enc.encode(eager.Interface()); err != nil {
		t.Fatal(err)
	}
	for range n {
		// Facts drawn from small pools share strings and flat values:
		// a later fact's refer to an earlier fact's tables, so a
		// decoding that started in the middle, or from tables another
		// decoding extended, would go wrong.
		v := reflect.New(typ.Elem())
		lockgraphtest.Fill(r, v.Elem())
		if err := enc.encode(v.Interface()); err != nil {
			t.Fatal(err)
		}
		want = append(want, v.Interface().(analysis.Fact))
	}
	dec := compactDecoder{b: enc.buf}
	if err := dec.decode(reflect.New(typ.Elem()).Interface()); err != nil {
		t.Fatal(err)
	}
	g := &lazyGroup{dec: dec, pkg: "example.com/p"}
	for i := range n {
		g.types = append(g.types, typ)
		g.digests = append(g.digests, string(rune('a'+i)))
	}

	// Read from the last to the first, collecting between reads so that
	// each read after the first decodes the group again.
	first := map[int]analysis.Fact{}
	for i := n - 1; i >= 0; i -= 2 {
		f := lazyRef{g, i}.value()
		if !reflect.DeepEqual(f, want[i]) {
			t.Errorf("fact %d decodes to\n%+v\nwant\n%+v", i, f, want[i])
		}
		first[i] = f
		runtime.GC()
	}
	for i, f := range first {
		if again := (lazyRef{g, i}).value(); again != f {
			t.Errorf("fact %d read twice is two values", i)
		}
		if !(lazyRef{g, i}).holds(f) {
			t.Errorf("fact %d read: the group does not say it holds it", i)
		}
		if (lazyRef{g, i}).holds(want[i]) {
			t.Errorf("fact %d: the group says it holds an equal value it did not decode", i)
		}
	}
	if (lazyRef{g, 0}).holds(first[n-1]) {
		t.Errorf("fact 0, not read yet: the group says it holds another fact's value")
	}
	// The facts not read yet still decode right.
	for i := range n {
		if f := (lazyRef{g, i}).value(); !reflect.DeepEqual(f, want[i]) {
			t.Errorf("fact %d, read last, decodes to\n%+v\nwant\n%+v", i, f, want[i])
		}
	}
}
