package lockseq

import (
	"maps"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// The end-to-end behaviour of the analysis is specified by the analysistest
// corpus (analyzer/analyzer_test.go). These tests pin the small pieces whose
// mistakes the corpus would only show indirectly.

func TestRefParam(t *testing.T) {
	tests := []struct {
		ref   Ref
		index int
		path  string
		ok    bool
	}{
		{"p0", 0, "", true},
		{"p12.db", 12, "db", true},
		{"p1.q.db", 1, "q.db", true},
		{"L3", 0, "", false},
		{"C2/L0", 0, "", false},
		{"g:example.com/db.Pool", 0, "", false},
		{fresh, 0, "", false},
	}
	for _, tt := range tests {
		i, path, ok := tt.ref.param()
		if i != tt.index || path != tt.path || ok != tt.ok {
			t.Errorf("%q.param() = %d, %q, %t; want %d, %q, %t", tt.ref, i, path, ok, tt.index, tt.path, tt.ok)
		}
	}
}

// TestStateJoin checks the two halves of the lattice: what may be held
// grows where paths meet, what is surely held shrinks.
func TestStateJoin(t *testing.T) {
	a := newState()
	a.hold(1, true)
	a.hold(2, true)
	b := newState()
	b.hold(2, true)
	b.hold(3, false)
	if !a.join(b) {
		t.Fatal("join reported no change")
	}
	if want := map[int]bool{1: true, 2: true, 3: true}; !maps.Equal(a.held, want) {
		t.Errorf("held = %v, want %v", a.held, want)
	}
	if want := map[int]bool{2: true}; !maps.Equal(a.must, want) {
		t.Errorf("must = %v, want %v", a.must, want)
	}
	if a.join(b) {
		t.Error("second join reported a change")
	}
	a.drop(2)
	if a.held[2] || a.must[2] {
		t.Error("drop left the event held")
	}
}

func TestDistinctConns(t *testing.T) {
	ev := func(conn Ref, kind sqlsite.HandleKind) *Event { return &Event{Conn: conn, TxKind: kind} }
	tests := []struct {
		name string
		a, b *Event
		want bool
	}{
		{"same connection", ev("p1", sqlsite.Tx), ev("p1", sqlsite.Tx), false},
		{"a pooled statement", ev("p1", sqlsite.Tx), ev(fresh, sqlsite.Pool), true},
		{"two pooled statements", ev(fresh, sqlsite.Pool), ev(fresh, sqlsite.Pool), true},
		{"a transaction of its own", ev("p1", sqlsite.Tx), ev("L0", sqlsite.Tx), true},
		{"two transaction parameters", ev("p1", sqlsite.Tx), ev("p2", sqlsite.Tx), true},
		{"a DBTX may wrap the transaction", ev("p1", sqlsite.Tx), ev("p0.db", sqlsite.Maybe), false},
		// A callback's transaction that its runner's summary passes no
		// handle for: some connection, perhaps the other's.
		{"a transaction whose connection was lost", ev(fresh, sqlsite.Tx), ev(fresh, sqlsite.Tx), false},
		{"a lost transaction and a transaction", ev("L0", sqlsite.Tx), ev(fresh, sqlsite.Tx), false},
		{"a lost connection", ev(fresh, sqlsite.Conn), ev("p1", sqlsite.Tx), false},
		// A pooled statement's connection is still its own.
		{"a lost transaction and a pooled statement", ev(fresh, sqlsite.Tx), ev(fresh, sqlsite.Pool), true},
	}
	for _, tt := range tests {
		if got := distinctConns(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: distinctConns = %t, want %t", tt.name, got, tt.want)
		}
	}
}

func TestParametricClasses(t *testing.T) {
	class := lockgraph.AdvisoryOf("(?p2, 7)", "x.go:3:4")
	if !class.Parametric() || lockgraph.AdvisoryOf("(7)", "x.go:3:4").Parametric() || lockgraph.RowsOf("t").Parametric() {
		t.Error("Parametric misclassifies")
	}
	if got := class.Concrete().String(); got != "advisory@x.go:3:4" {
		t.Errorf("Concrete = %q", got)
	}
	if got := class.Key().String(); got != "advisory:(?p2, 7)" {
		t.Errorf("Key = %q", got)
	}
	if got, want := keyShape(class), lockgraph.AdvisoryOf("(?, 7)", ""); got != want {
		t.Errorf("keyShape = %v, want %v", got, want)
	}
	if got := keyShape(lockgraph.AdvisoryOf("(7)", "")); !got.IsZero() {
		t.Errorf("keyShape of a constant key = %v, want none", got)
	}
	got, ok := substitute("hashtext($1) + $12", "$", func(n int) (string, bool) {
		return map[int]string{1: "'a'", 12: "5"}[n], n == 1 || n == 12
	})
	if !ok || got != "hashtext('a') + 5" {
		t.Errorf("substitute = %q, %t", got, ok)
	}
	if _, ok := substitute("?p3", "?p", func(int) (string, bool) { return "", false }); ok {
		t.Error("substitute succeeded with an unbound placeholder")
	}
}
