package lockgraph

import (
	"fmt"
	"go/token"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// TestEdgeKey checks that Edge.key builds the text fmt would: the order of
// edges with equal anchors, and so the output, depends on it.
func TestEdgeKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	lock := func() Lock {
		return Lock{
			Class: Class{Kind: ClassKind(r.IntN(6)), Name: pick("", "accounts", "(42)", "é|x"), Site: pick("", "a.go:3"), Shape: pick("", "id=$1")},
			Mode:  lockmodel.Mode(r.IntN(30)), Waits: r.IntN(2) == 1, Session: r.IntN(2) == 1, Pooled: r.IntN(2) == 1,
		}
	}
	for range 2000 {
		e := &Edge{Held: lock(), Wanted: lock(), Func: pick("", "pkg.F", "pkg.T.M"), CrossConn: r.IntN(2) == 1}
		for range r.IntN(3) {
			e.Gates = append(e.Gates, lock())
		}
		for range r.IntN(3) {
			e.Keyed = append(e.Keyed, KeyedGate{Lock: lock(), Shape: pick("", "runs:id="), Held: pick("", "a:b="), Wanted: pick("", "c:d=")})
		}
		want := fmt.Sprintf("%s|%s|%d|%t|%t|%t|%s|%d|%t|%t|%t|%v|%v", e.Func, e.Held.Class, e.Held.Mode, e.Held.Waits, e.Held.Session,
			e.Held.Pooled, e.Wanted.Class, e.Wanted.Mode, e.Wanted.Waits, e.Wanted.Session, e.CrossConn, e.Gates, e.Keyed)
		if got := e.key(); got != want {
			t.Fatalf("key\n%q, fmt would make\n%q", got, want)
		}
		if got, want := e.Held.String(), fmt.Sprintf("%s (%s)", e.Held.Class.Describe(), e.Held.modeName()); got != want {
			t.Fatalf("Lock.String %q, fmt would make %q", got, want)
		}
	}
}

// TestDedupeOrder checks Dedupe against its definition: a stable sort by
// Compare, then the first edge of each key. The edges are drawn from small
// pools, so that many tie on everything but the key and many share a key.
func TestDedupeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	lock := func() Lock {
		return Lock{Class: Class{Kind: RowClass, Name: pick("accounts", "usage")}, Mode: lockmodel.Mode(r.IntN(3)), Waits: r.IntN(2) == 1}
	}
	for round := range 50 {
		var edges []*Edge
		for range 1 + r.IntN(300) {
			e := &Edge{Held: lock(), Wanted: lock(), Func: pick("pkg.F", "pkg.G"), CrossConn: r.IntN(4) == 0}
			if r.IntN(3) == 0 {
				e.Gates = []Lock{lock()}
			}
			e.WantedPath = []Frame{{Func: e.Func, Pos: token.Position{Filename: pick("a.go", "b.go"), Line: 1 + r.IntN(3)}}}
			edges = append(edges, e)
		}
		want := slices.Clone(edges)
		slices.SortStableFunc(want, Compare)
		seen := map[string]bool{}
		want = slices.DeleteFunc(want, func(e *Edge) bool {
			k := e.key()
			dup := seen[k]
			seen[k] = true
			return dup
		})
		got := Dedupe(slices.Clone(edges))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: Dedupe kept %d edges in another order or other ones than the %d of its definition", round, len(got), len(want))
		}
	}
}
