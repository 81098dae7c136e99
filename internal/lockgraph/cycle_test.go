package lockgraph_test

import (
	"fmt"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// row, table and adv build waiting locks of each kind.
func row(table string, m lockmodel.Mode) lockgraph.Lock {
	return lockgraph.Lock{Class: lockgraph.RowsOf(table), Mode: m, Waits: true}
}

func table(name string, m lockmodel.Mode) lockgraph.Lock {
	return lockgraph.Lock{Class: lockgraph.TableOf(name), Mode: m, Waits: true}
}

func adv(key string, m lockmodel.Mode, session bool) lockgraph.Lock {
	return lockgraph.Lock{Class: lockgraph.AdvisoryOf("("+key+")", ""), Mode: m, Waits: true, Session: session}
}

func noWait(l lockgraph.Lock) lockgraph.Lock {
	l.Waits = false
	return l
}

// edge builds an edge witnessed by fn, with one frame on each side.
func edge(fn string, held, wanted lockgraph.Lock) *lockgraph.Edge {
	file := strings.ToLower(strings.ReplaceAll(fn, ".", "_")) + ".go"
	return &lockgraph.Edge{
		Held:       held,
		Wanted:     wanted,
		Func:       fn,
		Pkg:        "example.com/app",
		HeldPath:   []lockgraph.Frame{{Func: fn, Pos: token.Position{Filename: file, Line: 10, Column: 2}, What: "takes " + held.Class.String()}},
		WantedPath: []lockgraph.Frame{{Func: fn, Pos: token.Position{Filename: file, Line: 20, Column: 2}, What: "waits for " + wanted.Class.String()}},
	}
}

func crossConn(e *lockgraph.Edge) *lockgraph.Edge {
	e.CrossConn = true
	return e
}

// summary is the comparable part of a cycle.
type summary struct {
	Key      string
	Severity lockgraph.Severity
	Funcs    string // step functions, comma-separated
	Classes  string // Classes(), comma-separated
	Breaker  int
	Agree    string
}

func summarize(cs []*lockgraph.Cycle) []summary {
	out := make([]summary, 0, len(cs))
	for _, c := range cs {
		funcs := make([]string, len(c.Steps))
		for i, s := range c.Steps {
			funcs[i] = s.Func
		}
		out = append(out, summary{
			Key:      c.Key(),
			Severity: c.Severity,
			Funcs:    strings.Join(funcs, ","),
			Classes:  strings.Join(texts(c.Classes()), ","),
			Breaker:  c.Breaker,
			Agree:    fmt.Sprint(c.Agree),
		})
	}
	return out
}

func TestCycles(t *testing.T) {
	const fu, nku, fs, fks = lockmodel.ForUpdate, lockmodel.ForNoKeyUpdate, lockmodel.ForShare, lockmodel.ForKeyShare
	tests := []struct {
		name   string
		edges  []*lockgraph.Edge
		maxLen int
		want   []summary
	}{
		{
			name: "two-path FOR UPDATE inversion",
			edges: []*lockgraph.Edge{
				edge("billing.Invoice", row("subscriptions", fu), row("usage", fu)),
				edge("api.Tier", row("usage", fu), row("subscriptions", fu)),
			},
			want: []summary{{
				Key: "row:subscriptions -> row:usage", Severity: lockgraph.Detected,
				Funcs: "billing.Invoice,api.Tier", Classes: "row:subscriptions,row:usage",
				Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "FOR SHARE against FOR SHARE never blocks",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fs), row("b", fs)),
				edge("p.B", row("b", fs), row("a", fs)),
			},
		},
		{
			name: "FOR KEY SHARE against FOR NO KEY UPDATE never blocks",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fks), row("b", nku)),
				edge("p.B", row("b", fks), row("a", nku)),
			},
		},
		{
			name: "FOR NO KEY UPDATE against FOR KEY SHARE never blocks",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", nku), row("b", fks)),
				edge("p.B", row("b", nku), row("a", fks)),
			},
		},
		{
			name: "FOR SHARE held, FOR UPDATE wanted both ways",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fs), row("b", fu)),
				edge("p.B", row("b", fs), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.A,p.B", Classes: "row:a,row:b", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "NOWAIT request cannot close the cycle",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), noWait(row("a", fu))),
			},
		},
		{
			name: "three-way cycle",
			edges: []*lockgraph.Edge{
				edge("p.C", row("c", fu), row("a", fu)),
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("c", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b -> row:c", Severity: lockgraph.Detected,
				Funcs: "p.A,p.B,p.C", Classes: "row:a,row:b,row:c", Breaker: -1, Agree: "[1 1 1]",
			}},
		},
		{
			name: "three-way cycle needs every step: a missing one gives none",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("c", fu)),
			},
		},
		{
			name: "majority order, lone breaker in the second step",
			edges: []*lockgraph.Edge{
				edge("p.A3", row("a", fu), row("b", fu)),
				edge("p.Lone", row("b", fu), row("a", fu)),
				edge("p.A1", row("a", fu), row("b", fu)),
				edge("p.A2", row("a", fu), row("b", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.A1,p.Lone", Classes: "row:a,row:b", Breaker: 1, Agree: "[3 1]",
			}},
		},
		{
			name: "majority order, lone breaker in the first step",
			edges: []*lockgraph.Edge{
				edge("p.Lone", row("a", fu), row("b", fu)),
				edge("p.B1", row("b", fu), row("a", fu)),
				edge("p.B2", row("b", fu), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.Lone,p.B1", Classes: "row:a,row:b", Breaker: 0, Agree: "[1 2]",
			}},
		},
		{
			name: "one function witnessing a step twice counts once",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				func() *lockgraph.Edge {
					e := edge("p.A", row("a", fu), row("b", fu))
					e.WantedPath[0].Pos = lockgraphtest.Position("p_a.go:99:1")
					return e
				}(),
				edge("p.B", row("b", fu), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.A,p.B", Classes: "row:a,row:b", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "prefers a second function over the one already in the cycle",
			edges: []*lockgraph.Edge{
				edge("p.X", row("a", fu), row("b", fu)),
				edge("p.X", row("b", fu), row("a", fu)),
				edge("p.Y", row("b", fu), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.X,p.Y", Classes: "row:a,row:b", Breaker: 0, Agree: "[1 2]",
			}},
		},
		{
			name: "backtracks to a witness whose modes conflict",
			edges: []*lockgraph.Edge{
				edge("p.A1", row("a", fks), row("b", fks)),
				edge("p.A2", row("a", fu), row("b", fu)),
				edge("p.B", row("b", nku), row("a", nku)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.A2,p.B", Classes: "row:a,row:b", Breaker: 1, Agree: "[2 1]",
			}},
		},
		{
			name: "cross-connection edge in the cycle",
			edges: []*lockgraph.Edge{
				crossConn(edge("p.A", row("a", fu), row("b", fu))),
				edge("p.B", row("b", fu), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.CrossConnection,
				Funcs: "p.A,p.B", Classes: "row:a,row:b", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "session advisory lock held",
			edges: []*lockgraph.Edge{
				edge("p.A", adv("42", lockmodel.AdvisoryExclusive, true), row("a", fu)),
				edge("p.B", row("a", fu), adv("42", lockmodel.AdvisoryExclusive, false)),
			},
			want: []summary{{
				Key: "advisory:(42) -> row:a", Severity: lockgraph.SessionAdvisory,
				Funcs: "p.A,p.B", Classes: "advisory:(42),row:a", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "shared advisory locks do not block each other",
			edges: []*lockgraph.Edge{
				edge("p.A", adv("1", lockmodel.AdvisoryShared, false), adv("2", lockmodel.AdvisoryShared, false)),
				edge("p.B", adv("2", lockmodel.AdvisoryShared, false), adv("1", lockmodel.AdvisoryShared, false)),
			},
		},
		{
			name: "cross-connection outranks session advisory",
			edges: []*lockgraph.Edge{
				crossConn(edge("p.A", adv("42", lockmodel.AdvisoryExclusive, true), row("a", fu))),
				edge("p.B", row("a", fu), adv("42", lockmodel.AdvisoryExclusive, false)),
			},
			want: []summary{{
				Key: "advisory:(42) -> row:a", Severity: lockgraph.CrossConnection,
				Funcs: "p.A,p.B", Classes: "advisory:(42),row:a", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "self-deadlock through a second connection",
			edges: []*lockgraph.Edge{
				crossConn(edge("p.Self", row("a", fu), row("a", nku))),
			},
			want: []summary{{
				Key: "row:a", Severity: lockgraph.CrossConnection,
				Funcs: "p.Self", Classes: "row:a", Breaker: -1, Agree: "[1]",
			}},
		},
		{
			name: "second connection wanting a compatible mode is no self-deadlock",
			edges: []*lockgraph.Edge{
				crossConn(edge("p.Self", row("a", fks), row("a", fs))),
			},
		},
		{
			name: "second connection with NOWAIT is no self-deadlock",
			edges: []*lockgraph.Edge{
				crossConn(edge("p.Self", row("a", fu), noWait(row("a", fu)))),
			},
		},
		{
			name: "table SHARE against ROW EXCLUSIVE",
			edges: []*lockgraph.Edge{
				edge("p.A", table("a", lockmodel.Share), table("b", lockmodel.RowExclusive)),
				edge("p.B", table("b", lockmodel.Share), table("a", lockmodel.RowExclusive)),
			},
			want: []summary{{
				Key: "table:a -> table:b", Severity: lockgraph.Detected,
				Funcs: "p.A,p.B", Classes: "table:a,table:b", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "table SHARE against SHARE never blocks",
			edges: []*lockgraph.Edge{
				edge("p.A", table("a", lockmodel.Share), table("b", lockmodel.Share)),
				edge("p.B", table("b", lockmodel.Share), table("a", lockmodel.Share)),
			},
		},
		{
			name:   "maxLen 3 cuts a 4-cycle",
			maxLen: 3,
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("c", fu)),
				edge("p.C", row("c", fu), row("d", fu)),
				edge("p.D", row("d", fu), row("a", fu)),
			},
		},
		{
			name:   "maxLen 4 keeps a 4-cycle",
			maxLen: 4,
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("c", fu)),
				edge("p.C", row("c", fu), row("d", fu)),
				edge("p.D", row("d", fu), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b -> row:c -> row:d", Severity: lockgraph.Detected,
				Funcs: "p.A,p.B,p.C,p.D", Classes: "row:a,row:b,row:c,row:d", Breaker: -1, Agree: "[1 1 1 1]",
			}},
		},
		{
			name:   "maxLen 2 cuts a 3-cycle",
			maxLen: 2,
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("c", fu)),
				edge("p.C", row("c", fu), row("a", fu)),
			},
		},
		{
			name: "duplicate edges give one cycle",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("a", fu)),
				edge("p.B", row("b", fu), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a -> row:b", Severity: lockgraph.Detected,
				Funcs: "p.A,p.B", Classes: "row:a,row:b", Breaker: -1, Agree: "[1 1]",
			}},
		},
		{
			name: "lock upgrade FOR SHARE then FOR UPDATE",
			edges: []*lockgraph.Edge{
				edge("p.Up", row("a", fs), row("a", fu)),
			},
			want: []summary{{
				Key: "row:a", Severity: lockgraph.Detected,
				Funcs: "p.Up", Classes: "row:a", Breaker: -1, Agree: "[1]",
			}},
		},
		{
			name: "lock upgrade table SHARE then ROW EXCLUSIVE",
			edges: []*lockgraph.Edge{
				edge("p.Up", table("a", lockmodel.Share), table("a", lockmodel.RowExclusive)),
			},
			want: []summary{{
				Key: "table:a", Severity: lockgraph.Detected,
				Funcs: "p.Up", Classes: "table:a", Breaker: -1, Agree: "[1]",
			}},
		},
		{
			name: "FOR UPDATE twice is no upgrade",
			edges: []*lockgraph.Edge{
				edge("p.Up", row("a", fu), row("a", fu)),
			},
		},
		{
			name: "most severe first, then by key",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.B", row("b", fu), row("a", fu)),
				crossConn(edge("p.Y", row("y", fu), row("z", fu))),
				edge("p.Z", row("z", fu), row("y", fu)),
				edge("p.M", adv("7", lockmodel.AdvisoryExclusive, true), row("m", fu)),
				edge("p.N", row("m", fu), adv("7", lockmodel.AdvisoryExclusive, false)),
				edge("p.C", row("c", fu), row("d", fu)),
				edge("p.D", row("d", fu), row("c", fu)),
			},
			want: []summary{
				{Key: "row:y -> row:z", Severity: lockgraph.CrossConnection, Funcs: "p.Y,p.Z", Classes: "row:y,row:z", Breaker: -1, Agree: "[1 1]"},
				{Key: "advisory:(7) -> row:m", Severity: lockgraph.SessionAdvisory, Funcs: "p.M,p.N", Classes: "advisory:(7),row:m", Breaker: -1, Agree: "[1 1]"},
				{Key: "row:a -> row:b", Severity: lockgraph.Detected, Funcs: "p.A,p.B", Classes: "row:a,row:b", Breaker: -1, Agree: "[1 1]"},
				{Key: "row:c -> row:d", Severity: lockgraph.Detected, Funcs: "p.C,p.D", Classes: "row:c,row:d", Breaker: -1, Agree: "[1 1]"},
			},
		},
		{
			// Both directions of the 3-cycle are found; each starts at a
			// request a 2-cycle is also reported at, so it is folded into
			// that report (its Also) rather than repeated at one line.
			name: "3-cycles fold into 2-cycles at the same request",
			edges: []*lockgraph.Edge{
				edge("p.AB", row("a", fu), row("b", fu)),
				edge("p.BC", row("b", fu), row("c", fu)),
				edge("p.CA", row("c", fu), row("a", fu)),
				edge("p.AC", row("a", fu), row("c", fu)),
				edge("p.CB", row("c", fu), row("b", fu)),
				edge("p.BA", row("b", fu), row("a", fu)),
			},
			maxLen: 3,
			want: []summary{
				{Key: "row:a -> row:b", Severity: lockgraph.Detected, Funcs: "p.AB,p.BA", Classes: "row:a,row:b", Breaker: -1, Agree: "[1 1]"},
				{Key: "row:a -> row:c", Severity: lockgraph.Detected, Funcs: "p.AC,p.CA", Classes: "row:a,row:c", Breaker: -1, Agree: "[1 1]"},
				{Key: "row:b -> row:c", Severity: lockgraph.Detected, Funcs: "p.BC,p.CB", Classes: "row:b,row:c", Breaker: -1, Agree: "[1 1]"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			maxLen := tt.maxLen
			if maxLen == 0 {
				maxLen = 4
			}
			got := summarize(lockgraph.New(tt.edges).Cycles(maxLen))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Cycles(%d) =\n%s\nwant\n%s", maxLen, fmtSummaries(got), fmtSummaries(tt.want))
			}
		})
	}
}

func fmtSummaries(ss []summary) string {
	if len(ss) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "  %+v\n", s)
	}
	return b.String()
}

// TestCyclesInputOrder checks that the reported cycle does not depend on the
// order in which edges are given.
func TestCyclesInputOrder(t *testing.T) {
	fu := lockmodel.ForUpdate
	edges := []*lockgraph.Edge{
		edge("p.A1", row("b", fu), row("c", fu)),
		edge("p.A2", row("b", fu), row("c", fu)),
		edge("p.B", row("c", fu), row("b", fu)),
		edge("p.X", row("x", fu), row("y", fu)),
	}
	want := []summary{{
		Key: "row:b -> row:c", Severity: lockgraph.Detected,
		Funcs: "p.A1,p.B", Classes: "row:b,row:c", Breaker: 1, Agree: "[2 1]",
	}}
	for i, perm := range permutations(len(edges)) {
		in := make([]*lockgraph.Edge, len(edges))
		for j, k := range perm {
			in[j] = edges[k]
		}
		t.Run(fmt.Sprintf("perm%02d", i), func(t *testing.T) {
			got := summarize(lockgraph.New(in).Cycles(4))
			if !slices.Equal(got, want) {
				t.Errorf("order %v: Cycles =\n%s\nwant\n%s", perm, fmtSummaries(got), fmtSummaries(want))
			}
		})
	}
}

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := slices.Insert(slices.Clone(p), i, n-1)
			out = append(out, q)
		}
	}
	return out
}

func TestCycleKeyRotation(t *testing.T) {
	mk := func(classes ...string) *lockgraph.Cycle {
		c := &lockgraph.Cycle{}
		for i, cl := range classes {
			next := classes[(i+1)%len(classes)]
			c.Steps = append(c.Steps, edge("p.F", lockgraph.Lock{Class: lockgraph.RowsOf(cl)}, lockgraph.Lock{Class: lockgraph.RowsOf(next)}))
		}
		return c
	}
	tests := []struct {
		name    string
		classes []string
		want    string
	}{
		{"already smallest first", []string{"a", "b", "c"}, "row:a -> row:b -> row:c"},
		{"rotated once", []string{"b", "c", "a"}, "row:a -> row:b -> row:c"},
		{"rotated twice", []string{"c", "a", "b"}, "row:a -> row:b -> row:c"},
		{"other direction keeps its order", []string{"c", "b", "a"}, "row:a -> row:c -> row:b"},
		{"one step", []string{"t"}, "row:t"},
		{"no steps", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mk(tt.classes...).Key(); got != tt.want {
				t.Errorf("Key() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGraphEdges(t *testing.T) {
	fu := lockmodel.ForUpdate
	in := []*lockgraph.Edge{
		edge("p.B", row("b", fu), row("a", fu)),
		edge("p.A", row("a", fu), row("b", fu)),
		edge("p.A", row("a", fu), row("b", fu)),         // duplicate
		edge("p.N", row("a", fu), noWait(row("c", fu))), // never waits: left out
		edge("p.K", row("a", fu), noWait(row("c", fu))), // never waits: left out
		edge("p.C", row("c", fu), row("a", fu)),
	}
	orig := slices.Clone(in)
	g := lockgraph.New(in)
	var got []string
	for _, e := range g.Edges() {
		got = append(got, e.Func+":"+e.Held.Class.String()+">"+e.Wanted.Class.String())
	}
	want := []string{"p.A:row:a>row:b", "p.B:row:b>row:a", "p.C:row:c>row:a"}
	if !slices.Equal(got, want) {
		t.Errorf("Edges() = %q, want %q", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Errorf("New reordered or changed its argument")
	}
}

func TestConflicts(t *testing.T) {
	tests := []struct {
		name       string
		held, want lockgraph.Lock
		conflicts  bool
	}{
		{"FOR UPDATE vs FOR UPDATE", row("a", lockmodel.ForUpdate), row("a", lockmodel.ForUpdate), true},
		{"FOR UPDATE vs FOR KEY SHARE", row("a", lockmodel.ForUpdate), row("a", lockmodel.ForKeyShare), true},
		{"FOR KEY SHARE vs FOR UPDATE", row("a", lockmodel.ForKeyShare), row("a", lockmodel.ForUpdate), true},
		{"FOR KEY SHARE vs FOR NO KEY UPDATE", row("a", lockmodel.ForKeyShare), row("a", lockmodel.ForNoKeyUpdate), false},
		{"FOR NO KEY UPDATE vs FOR KEY SHARE", row("a", lockmodel.ForNoKeyUpdate), row("a", lockmodel.ForKeyShare), false},
		{"FOR SHARE vs FOR SHARE", row("a", lockmodel.ForShare), row("a", lockmodel.ForShare), false},
		{"FOR SHARE vs FOR NO KEY UPDATE", row("a", lockmodel.ForShare), row("a", lockmodel.ForNoKeyUpdate), true},
		{"different classes", row("a", lockmodel.ForUpdate), row("b", lockmodel.ForUpdate), false},
		{"request never waits", row("a", lockmodel.ForUpdate), noWait(row("a", lockmodel.ForUpdate)), false},
		{"held NOWAIT still held", noWait(row("a", lockmodel.ForUpdate)), row("a", lockmodel.ForUpdate), true},
		{"table SHARE vs ROW EXCLUSIVE", table("t", lockmodel.Share), table("t", lockmodel.RowExclusive), true},
		{"table ROW EXCLUSIVE vs ROW EXCLUSIVE", table("t", lockmodel.RowExclusive), table("t", lockmodel.RowExclusive), false},
		{"table ACCESS SHARE vs ACCESS EXCLUSIVE", table("t", lockmodel.AccessShare), table("t", lockmodel.AccessExclusive), true},
		{"advisory shared vs shared", adv("1", lockmodel.AdvisoryShared, false), adv("1", lockmodel.AdvisoryShared, true), false},
		{"advisory shared vs exclusive", adv("1", lockmodel.AdvisoryShared, true), adv("1", lockmodel.AdvisoryExclusive, false), true},
		{"row mode vs table mode on one class", lockgraph.Lock{Class: lockgraph.RowsOf("x"), Mode: lockmodel.ForUpdate, Waits: true},
			lockgraph.Lock{Class: lockgraph.RowsOf("x"), Mode: lockmodel.AccessExclusive, Waits: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lockgraph.Conflicts(tt.held, tt.want); got != tt.conflicts {
				t.Errorf("Conflicts(%v, %v) = %t, want %t", tt.held, tt.want, got, tt.conflicts)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		a, b lockmodel.Mode
		want bool
	}{
		{lockmodel.ForUpdate, lockmodel.ForUpdate, true},
		{lockmodel.ForUpdate, lockmodel.ForShare, true},
		{lockmodel.ForUpdate, lockmodel.ForKeyShare, true},
		{lockmodel.ForNoKeyUpdate, lockmodel.ForShare, true},
		{lockmodel.ForShare, lockmodel.ForKeyShare, true},
		{lockmodel.ForShare, lockmodel.ForUpdate, false},
		{lockmodel.ForKeyShare, lockmodel.ForShare, false},
		{lockmodel.ForNoKeyUpdate, lockmodel.ForUpdate, false},
		{lockmodel.AccessExclusive, lockmodel.AccessShare, true},
		{lockmodel.Exclusive, lockmodel.AccessShare, true},
		{lockmodel.RowShare, lockmodel.AccessShare, true},
		{lockmodel.RowExclusive, lockmodel.RowShare, true},
		{lockmodel.ShareRowExclusive, lockmodel.Share, true},
		{lockmodel.ShareRowExclusive, lockmodel.RowExclusive, true},
		{lockmodel.Share, lockmodel.RowExclusive, false},
		{lockmodel.RowExclusive, lockmodel.Share, false},
		{lockmodel.Share, lockmodel.ShareUpdateExclusive, false},
		{lockmodel.AccessShare, lockmodel.RowShare, false},
		{lockmodel.AdvisoryExclusive, lockmodel.AdvisoryShared, true},
		{lockmodel.AdvisoryShared, lockmodel.AdvisoryExclusive, false},
		{lockmodel.AdvisoryShared, lockmodel.AdvisoryShared, true},
		{lockmodel.ForUpdate, lockmodel.RowShare, false},
		{lockmodel.AccessExclusive, lockmodel.ForKeyShare, false},
		{0, 0, false},
		{0, lockmodel.ForKeyShare, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%v", tt.a, tt.b), func(t *testing.T) {
			if got := lockgraph.Covers(tt.a, tt.b); got != tt.want {
				t.Errorf("Covers(%v, %v) = %t, want %t", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestUpgrade(t *testing.T) {
	tests := []struct {
		name       string
		held, want lockgraph.Lock
		crossConn  bool
		upgrade    bool // Upgrade(held, want)
		isUpgrade  bool // Edge.IsUpgrade
	}{
		{"FOR SHARE then FOR UPDATE", row("a", lockmodel.ForShare), row("a", lockmodel.ForUpdate), false, true, true},
		{"FOR SHARE then FOR NO KEY UPDATE", row("a", lockmodel.ForShare), row("a", lockmodel.ForNoKeyUpdate), false, true, true},
		{"FOR KEY SHARE then FOR UPDATE", row("a", lockmodel.ForKeyShare), row("a", lockmodel.ForUpdate), false, true, true},
		{"FOR KEY SHARE then FOR NO KEY UPDATE", row("a", lockmodel.ForKeyShare), row("a", lockmodel.ForNoKeyUpdate), false, false, false},
		{"FOR SHARE then FOR SHARE", row("a", lockmodel.ForShare), row("a", lockmodel.ForShare), false, false, false},
		{"FOR NO KEY UPDATE then FOR UPDATE", row("a", lockmodel.ForNoKeyUpdate), row("a", lockmodel.ForUpdate), false, false, false},
		{"FOR UPDATE then FOR UPDATE", row("a", lockmodel.ForUpdate), row("a", lockmodel.ForUpdate), false, false, false},
		{"table SHARE then ROW EXCLUSIVE", table("t", lockmodel.Share), table("t", lockmodel.RowExclusive), false, true, true},
		{"table ROW EXCLUSIVE then SHARE", table("t", lockmodel.RowExclusive), table("t", lockmodel.Share), false, true, true},
		{"table ACCESS SHARE then ACCESS EXCLUSIVE", table("t", lockmodel.AccessShare), table("t", lockmodel.AccessExclusive), false, true, true},
		{"table SHARE ROW EXCLUSIVE then EXCLUSIVE", table("t", lockmodel.ShareRowExclusive), table("t", lockmodel.Exclusive), false, false, false},
		{"advisory shared then exclusive", adv("1", lockmodel.AdvisoryShared, false), adv("1", lockmodel.AdvisoryExclusive, false), false, true, true},
		{"advisory exclusive then exclusive", adv("1", lockmodel.AdvisoryExclusive, false), adv("1", lockmodel.AdvisoryExclusive, false), false, false, false},
		{"second request never waits", row("a", lockmodel.ForShare), noWait(row("a", lockmodel.ForUpdate)), false, false, false},
		{"different objects", row("a", lockmodel.ForShare), row("b", lockmodel.ForUpdate), false, false, false},
		{"on another connection", row("a", lockmodel.ForShare), row("a", lockmodel.ForUpdate), true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lockgraph.Upgrade(tt.held, tt.want); got != tt.upgrade {
				t.Errorf("Upgrade(%v, %v) = %t, want %t", tt.held, tt.want, got, tt.upgrade)
			}
			e := edge("p.F", tt.held, tt.want)
			e.CrossConn = tt.crossConn
			if got := e.IsUpgrade(); got != tt.isUpgrade {
				t.Errorf("IsUpgrade() = %t, want %t", got, tt.isUpgrade)
			}
		})
	}
}

func TestDedupe(t *testing.T) {
	fu := lockmodel.ForUpdate
	at := func(e *lockgraph.Edge, pos string) *lockgraph.Edge {
		e.WantedPath[0].Pos = lockgraphtest.Position(pos)
		return e
	}
	tests := []struct {
		name  string
		edges []*lockgraph.Edge
		want  []string // Func|Held>Wanted|anchor
	}{
		{
			name: "identical edges collapse",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.A", row("a", fu), row("b", fu)),
			},
			want: []string{"p.A|row:a>row:b|p_a.go:20:2"},
		},
		{
			name: "keeps the first anchor in order",
			edges: []*lockgraph.Edge{
				at(edge("p.A", row("a", fu), row("b", fu)), "p_a.go:30:1"),
				at(edge("p.A", row("a", fu), row("b", fu)), "p_a.go:12:1"),
				at(edge("p.A", row("a", fu), row("b", fu)), "p_a.go:21:1"),
			},
			want: []string{"p.A|row:a>row:b|p_a.go:12:1"},
		},
		{
			name: "sorted by held class, wanted class, function",
			edges: []*lockgraph.Edge{
				edge("p.B", row("b", fu), row("a", fu)),
				edge("p.Z", row("a", fu), row("c", fu)),
				edge("p.Y", row("a", fu), row("b", fu)),
				edge("p.X", row("a", fu), row("b", fu)),
			},
			want: []string{
				"p.X|row:a>row:b|p_x.go:20:2",
				"p.Y|row:a>row:b|p_y.go:20:2",
				"p.Z|row:a>row:c|p_z.go:20:2",
				"p.B|row:b>row:a|p_b.go:20:2",
			},
		},
		{
			name: "different modes, waits and connections are kept",
			edges: []*lockgraph.Edge{
				edge("p.A", row("a", fu), row("b", fu)),
				edge("p.A", row("a", lockmodel.ForShare), row("b", fu)),
				edge("p.A", row("a", fu), row("b", lockmodel.ForShare)),
				edge("p.A", row("a", fu), noWait(row("b", fu))),
				crossConn(edge("p.A", row("a", fu), row("b", fu))),
			},
			want: []string{
				"p.A|row:a>row:b|p_a.go:20:2",
				"p.A|row:a>row:b|p_a.go:20:2",
				"p.A|row:a>row:b|p_a.go:20:2",
				"p.A|row:a>row:b|p_a.go:20:2",
				"p.A|row:a>row:b|p_a.go:20:2",
			},
		},
		{
			name: "held session lock is kept apart",
			edges: []*lockgraph.Edge{
				edge("p.A", adv("1", lockmodel.AdvisoryExclusive, true), row("b", fu)),
				edge("p.A", adv("1", lockmodel.AdvisoryExclusive, false), row("b", fu)),
			},
			want: []string{
				"p.A|advisory:(1)>row:b|p_a.go:20:2",
				"p.A|advisory:(1)>row:b|p_a.go:20:2",
			},
		},
		{
			name: "functions are kept apart",
			edges: []*lockgraph.Edge{
				edge("p.B", row("a", fu), row("b", fu)),
				edge("p.A", row("a", fu), row("b", fu)),
			},
			want: []string{"p.A|row:a>row:b|p_a.go:20:2", "p.B|row:a>row:b|p_b.go:20:2"},
		},
		{name: "empty", edges: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range lockgraph.Dedupe(tt.edges) {
				got = append(got, e.Func+"|"+e.Held.Class.String()+">"+e.Wanted.Class.String()+"|"+e.Anchor().String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Dedupe =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// wantedSessionEdges returns two witnesses in one function that differ only
// in whether the requested advisory lock is session-level, the xact one at
// the smaller position, and a path that closes the cycle through them.
func wantedSessionEdges() (xact, sess, back *lockgraph.Edge) {
	fu := lockmodel.ForUpdate
	xact = edge("p.A", row("a", fu), adv("1", lockmodel.AdvisoryExclusive, false))
	xact.WantedPath[0].Pos = lockgraphtest.Position("p_a.go:11:1")
	sess = edge("p.A", row("a", fu), adv("1", lockmodel.AdvisoryExclusive, true))
	sess.WantedPath[0].Pos = lockgraphtest.Position("p_a.go:12:1")
	back = edge("p.B", adv("1", lockmodel.AdvisoryExclusive, false), row("a", fu))
	return xact, sess, back
}

// TestDedupeWantedSession: Dedupe keeps witnesses that differ only in
// Wanted.Session (regression test for Edge.key omitting it).
func TestDedupeWantedSession(t *testing.T) {
	xact, sess, _ := wantedSessionEdges()
	got := lockgraph.Dedupe([]*lockgraph.Edge{sess, xact})
	if len(got) != 2 || got[0] != xact || got[1] != sess {
		t.Errorf("Dedupe kept %d edges %v, want the xact then the session witness", len(got), got)
	}
}

// TestCyclesWantedSessionSeverity: Cycles raises a cycle to SessionAdvisory
// when a step's Wanted.Session is set, so the severity must not depend on
// which of two otherwise equal witnesses sorts first by position.
func TestCyclesWantedSessionSeverity(t *testing.T) {
	xact, sess, back := wantedSessionEdges()
	cs := lockgraph.New([]*lockgraph.Edge{xact, sess, back}).Cycles(4)
	if len(cs) != 1 || cs[0].Severity != lockgraph.SessionAdvisory {
		t.Errorf("Cycles = %+v, want one SessionAdvisory cycle", summarize(cs))
	}
}

func TestCompareAndAnchor(t *testing.T) {
	fu := lockmodel.ForUpdate
	a := edge("p.A", row("a", fu), row("b", fu))
	b := edge("p.A", row("a", fu), row("c", fu))
	if got := lockgraph.Compare(a, b); got >= 0 {
		t.Errorf("Compare(a>b, a>c) = %d, want < 0", got)
	}
	if got := lockgraph.Compare(b, a); got <= 0 {
		t.Errorf("Compare(a>c, a>b) = %d, want > 0", got)
	}
	if got := lockgraph.Compare(a, edge("p.A", row("a", fu), row("b", fu))); got != 0 {
		t.Errorf("Compare of equal edges = %d, want 0", got)
	}
	if got := a.Anchor().String(); got != "p_a.go:20:2" {
		t.Errorf("Anchor() = %q, want %q", got, "p_a.go:20:2")
	}
	if got := (&lockgraph.Edge{}).Anchor(); got.IsValid() || got.Filename != "" {
		t.Errorf("Anchor() of an edge without a path = %v, want empty", got)
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		class             lockgraph.Class
		text, name, short string
	}{
		{lockgraph.RowsOf("subscriptions"), "row:subscriptions", "rows of subscriptions", "subscriptions"},
		{lockgraph.RowsOf("billing.invoices"), "row:billing.invoices", "rows of billing.invoices", "billing.invoices"},
		{lockgraph.TableOf("usage"), "table:usage", "table usage", "table usage"},
		{lockgraph.AdvisoryOf("(42)", "ignored.go:1:1"), "advisory:(42)", "advisory lock (42)", "advisory lock (42)"},
		{lockgraph.AdvisoryOf("(?p0)", "lock.go:3:4"), "advisory:(?p0)|@lock.go:3:4", "advisory lock (?p0)|@lock.go:3:4", "advisory lock (?p0)|@lock.go:3:4"},
		{lockgraph.AdvisoryAt("billing/lock.go:12"), "advisory@billing/lock.go:12", "advisory lock taken at billing/lock.go:12", "advisory lock taken at billing/lock.go:12"},
		{lockgraph.Class{}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := tt.class.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			if got := tt.class.Describe(); got != tt.name {
				t.Errorf("Describe(%v) = %q, want %q", tt.class, got, tt.name)
			}
			if got := tt.class.Short(); got != tt.short {
				t.Errorf("Short(%v) = %q, want %q", tt.class, got, tt.short)
			}
		})
	}
}

// TestCompareClasses checks that classes sort as their text forms do, so
// that every order built on them (cycle keys, rotations) reads the same in
// text.
func TestCompareClasses(t *testing.T) {
	classes := []lockgraph.Class{
		lockgraph.RowsOf("b"), lockgraph.TableOf("a"), lockgraph.AdvisoryAt("x.go:1:1"), lockgraph.RowsOf("a"),
		lockgraph.AdvisoryOf("(?p0)", "y.go:2:2"), lockgraph.AdvisoryOf("(?p0)", "x.go:9:9"), lockgraph.AdvisoryOf("(42)", ""),
		lockgraph.AdvisoryOf("(4)", ""), lockgraph.AdvisoryOf("(?p0)", ""), lockgraph.RowsOf("a.b"), lockgraph.TableOf("a_b"),
	}
	for _, a := range classes {
		for _, b := range classes {
			if got, want := sign(lockgraph.CompareClasses(a, b)), sign(strings.Compare(a.String(), b.String())); got != want {
				t.Errorf("CompareClasses(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// texts returns the text forms of classes.
func texts(classes []lockgraph.Class) []string {
	out := make([]string, len(classes))
	for i, c := range classes {
		out[i] = c.String()
	}
	return out
}

func TestLockString(t *testing.T) {
	tests := []struct {
		lock lockgraph.Lock
		want string
	}{
		{row("subscriptions", lockmodel.ForUpdate), "rows of subscriptions (FOR UPDATE)"},
		{table("t", lockmodel.ShareRowExclusive), "table t (SHARE ROW EXCLUSIVE)"},
		{adv("42", lockmodel.AdvisoryExclusive, true), "advisory lock (42) (session, exclusive)"},
		{adv("1, 2", lockmodel.AdvisoryShared, false), "advisory lock (1, 2) (transaction, shared)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.lock.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCyclesGrouping checks that cycles closed by the same functions are
// reported once, with the others listed in Also, and that a cycle inside one
// function does not hide a cycle between that function and another.
func TestCyclesGrouping(t *testing.T) {
	fu := lockmodel.ForUpdate
	// A locks a, b, c in that order; B locks c, b, a: three two-cycles
	// (a/b, a/c, b/c) and two three-cycles, all between A and B.
	var edges []*lockgraph.Edge
	order := []string{"a", "b", "c"}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			edges = append(edges,
				edge("p.A", row(order[i], fu), row(order[j], fu)),
				edge("p.B", row(order[j], fu), row(order[i], fu)))
		}
	}
	cs := lockgraph.New(edges).Cycles(4)
	if len(cs) != 1 {
		t.Fatalf("got %d cycles, want 1: %s", len(cs), fmtSummaries(summarize(cs)))
	}
	if got, want := cs[0].Key(), "row:a -> row:b"; got != want {
		t.Errorf("reported cycle %q, want %q", got, want)
	}
	var also []string
	for _, classes := range cs[0].Also {
		also = append(also, strings.Join(texts(classes), " -> "))
	}
	if got, want := also, []string{"row:a -> row:c", "row:b -> row:c", "row:a -> row:b -> row:c", "row:a -> row:c -> row:b"}; !slices.Equal(got, want) {
		t.Errorf("Also = %q, want %q", got, want)
	}

	// F inverts x and y by itself (two branches); F and G invert y and z.
	// The first cycle names only F, so it must not hide the second.
	edges = []*lockgraph.Edge{
		edge("p.F", row("x", fu), row("y", fu)),
		edge("p.F", row("y", fu), row("x", fu)),
		edge("p.F", row("y", fu), row("z", fu)),
		edge("p.G", row("z", fu), row("y", fu)),
	}
	cs = lockgraph.New(edges).Cycles(4)
	var keys []string
	for _, c := range cs {
		keys = append(keys, c.Key())
	}
	slices.Sort(keys)
	if want := []string{"row:x -> row:y", "row:y -> row:z"}; !slices.Equal(keys, want) {
		t.Errorf("cycles %q, want %q", keys, want)
	}
}

// TestBreakerFollowers checks that the breaker's followers count distinct
// functions: one function that witnesses two steps counts once.
func TestBreakerFollowers(t *testing.T) {
	fu := lockmodel.ForUpdate
	edges := []*lockgraph.Edge{
		edge("p.A", row("a", fu), row("b", fu)),
		edge("p.B", row("a", fu), row("b", fu)),
		edge("p.A", row("b", fu), row("c", fu)),
		edge("p.C", row("b", fu), row("c", fu)),
		edge("p.Z", row("c", fu), row("a", fu)),
	}
	cs := lockgraph.New(edges).Cycles(4)
	if len(cs) != 1 {
		t.Fatalf("got %d cycles, want 1", len(cs))
	}
	c := cs[0]
	if c.Breaker < 0 || c.Steps[c.Breaker].Func != "p.Z" {
		t.Fatalf("breaker %d, want the step of p.Z", c.Breaker)
	}
	if c.Followers != 3 {
		t.Errorf("Followers = %d, want 3 (p.A, p.B, p.C)", c.Followers)
	}
}

// TestWithoutTables checks that edges touching a temporary table, as a row
// or a table lock, are dropped and the others kept.
func TestWithoutTables(t *testing.T) {
	fu := lockmodel.ForUpdate
	keep := edge("p.A", row("a", fu), row("b", fu))
	edges := []*lockgraph.Edge{
		keep,
		edge("p.A", row("tmp", fu), row("b", fu)),
		edge("p.A", row("a", fu), table("tmp", lockmodel.RowExclusive)),
	}
	got := lockgraph.WithoutTables(edges, map[string]bool{"tmp": true})
	if len(got) != 1 || got[0] != keep {
		t.Fatalf("WithoutTables kept %d edges, want only a -> b", len(got))
	}
	if got := lockgraph.WithoutTables(edges, nil); len(got) != 3 {
		t.Errorf("WithoutTables with no tables kept %d of 3 edges", len(got))
	}
}

// TestGated checks the gate rule: a cycle whose every path holds the same
// self-conflicting lock in front of its pair is serialised; shared gates, a
// gate missing on one path, or different gates are not.
func TestGated(t *testing.T) {
	fu := lockmodel.ForUpdate
	gate := adv("(9)", lockmodel.AdvisoryExclusive, false)
	shared := adv("(9)", lockmodel.AdvisoryShared, false)
	other := adv("(8)", lockmodel.AdvisoryExclusive, false)
	withGates := func(e *lockgraph.Edge, gates ...lockgraph.Lock) *lockgraph.Edge {
		e.Gates = gates
		return e
	}
	tests := []struct {
		name   string
		gates  [2][]lockgraph.Lock
		cycles int
	}{
		{"both paths behind one exclusive gate", [2][]lockgraph.Lock{{gate}, {gate}}, 0},
		{"one path without the gate", [2][]lockgraph.Lock{{gate}, nil}, 1},
		{"shared gates do not exclude each other", [2][]lockgraph.Lock{{shared}, {shared}}, 1},
		{"exclusive against shared still excludes", [2][]lockgraph.Lock{{gate}, {shared}}, 0},
		{"different gates", [2][]lockgraph.Lock{{gate}, {other}}, 1},
		{"no gates", [2][]lockgraph.Lock{nil, nil}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edges := []*lockgraph.Edge{
				withGates(edge("p.A", row("a", fu), row("b", fu)), tt.gates[0]...),
				withGates(edge("p.B", row("b", fu), row("a", fu)), tt.gates[1]...),
			}
			if got := len(lockgraph.New(edges).Cycles(4)); got != tt.cycles {
				t.Errorf("got %d cycles, want %d", got, tt.cycles)
			}
		})
	}
	// One path without the gate the other holds: that path is the breaker,
	// and the missing gate is named.
	cs := lockgraph.New([]*lockgraph.Edge{
		withGates(edge("p.A", row("a", fu), row("b", fu)), gate),
		edge("p.B", row("b", fu), row("a", fu)),
	}).Cycles(4)
	if len(cs) != 1 || cs[0].MissingGate == nil || cs[0].MissingGate.Class != gate.Class ||
		cs[0].Steps[cs[0].Breaker].Func != "p.B" {
		t.Errorf("missing gate not found: %s", fmtSummaries(summarize(cs)))
	}
	// A row lock only the other path takes reads as no guard: no advice.
	rootRow := row("root", fu)
	cs = lockgraph.New([]*lockgraph.Edge{
		withGates(edge("p.A", row("a", fu), row("b", fu)), rootRow),
		edge("p.B", row("b", fu), row("a", fu)),
	}).Cycles(4)
	if len(cs) != 1 || cs[0].MissingGate != nil {
		t.Errorf("unrelated table suggested as a gate: %s", fmtSummaries(summarize(cs)))
	}
	// ... unless the breaker locks that table somewhere itself.
	cs = lockgraph.New([]*lockgraph.Edge{
		withGates(edge("p.A", row("a", fu), row("b", fu)), rootRow),
		edge("p.B", row("b", fu), row("a", fu)),
		edge("p.B", row("root", fu), row("c", fu)),
	}).Cycles(4)
	if len(cs) != 1 || cs[0].MissingGate == nil || cs[0].MissingGate.Class != lockgraph.RowsOf("root") {
		t.Errorf("the breaker's own root lock not suggested: %s", fmtSummaries(summarize(cs)))
	}
	// A shared gate is no gate: nothing is missing.
	cs = lockgraph.New([]*lockgraph.Edge{
		withGates(edge("p.A", row("a", fu), row("b", fu)), shared),
		edge("p.B", row("b", fu), row("a", fu)),
	}).Cycles(4)
	if len(cs) != 1 || cs[0].MissingGate != nil {
		t.Errorf("shared lock reported as a missing gate: %s", fmtSummaries(summarize(cs)))
	}
	// A lock upgrade behind a gate: two runs of the path queue on the gate.
	up := withGates(edge("p.U", row("a", lockmodel.ForShare), row("a", fu)), gate)
	if got := len(lockgraph.New([]*lockgraph.Edge{up}).Cycles(4)); got != 0 {
		t.Errorf("gated upgrade: got %d cycles, want 0", got)
	}
}

func TestTestCode(t *testing.T) {
	for _, tt := range []struct {
		file, pkg string
		want      bool
	}{
		{"/m/store/store.go", "example.com/m/store", false},
		{"/m/store/store_test.go", "example.com/m/store", true},
		{"/m/store/x.go", "example.com/m/store_test", false},
		{"/m/internal/pgtest/db.go", "example.com/m/internal/pgtest", true},
		{"/m/internal/testutil/db.go", "example.com/m/internal/testutil", true},
		{"/m/internal/testhelpers/db.go", "example.com/m/internal/testhelpers", true},
		{"/m/api/latest/handler.go", "example.com/m/api/latest", false},
		{"/m/contest/entry.go", "example.com/m/contest", false},
		{"/m/mocks/store.go", "example.com/m/mocks", true},
	} {
		if got := lockgraph.TestCode(tt.file, tt.pkg); got != tt.want {
			t.Errorf("TestCode(%q, %q) = %t, want %t", tt.file, tt.pkg, got, tt.want)
		}
	}
}

// TestCyclesKeepTestsApart checks that a path in test code is never set
// against a production path (tests do not run beside the service), while
// two test paths, or two production paths, still form a cycle.
func TestCyclesKeepTestsApart(t *testing.T) {
	fu := lockmodel.ForUpdate
	inTest := func(e *lockgraph.Edge) *lockgraph.Edge {
		e.HeldPath[0].Pos.Filename = "store_test.go"
		return e
	}
	tests := []struct {
		name  string
		edges []*lockgraph.Edge
		want  int
	}{
		{"production against production", []*lockgraph.Edge{edge("p.A", row("a", fu), row("b", fu)), edge("p.B", row("b", fu), row("a", fu))}, 1},
		{"test against production", []*lockgraph.Edge{edge("p.A", row("a", fu), row("b", fu)), inTest(edge("p.TestB", row("b", fu), row("a", fu)))}, 0},
		{"test against test", []*lockgraph.Edge{inTest(edge("p.TestA", row("a", fu), row("b", fu))), inTest(edge("p.TestB", row("b", fu), row("a", fu)))}, 1},
		{"a production witness beside a test one", []*lockgraph.Edge{
			edge("p.A", row("a", fu), row("b", fu)), inTest(edge("p.TestB", row("b", fu), row("a", fu))), edge("p.B", row("b", fu), row("a", fu)),
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := lockgraph.New(tt.edges).Cycles(4)
			if len(cs) != tt.want {
				t.Fatalf("%d cycles, want %d: %s", len(cs), tt.want, fmtSummaries(summarize(cs)))
			}
			for _, c := range cs {
				for _, s := range c.Steps {
					if s.InTest() != c.Steps[0].InTest() {
						t.Errorf("cycle %s mixes test and production paths", c.Key())
					}
				}
			}
		})
	}
}

// TestOneReportPerBreaker models one function that takes two locks
// against the order the rest of the program keeps, where the rest also
// reaches the second lock through fourteen intermediate tables: the
// inversion closes one 2-cycle and fourteen 3-cycles, all through the same
// path. That is one mistake: one report, naming the others.
func TestOneReportPerBreaker(t *testing.T) {
	fu := lockmodel.ForUpdate
	var edges []*lockgraph.Edge
	for i := range 3 {
		edges = append(edges, edge(fmt.Sprintf("p.Keep%d", i), row("a", fu), row("b", fu)))
	}
	for k := range 14 {
		mid := fmt.Sprintf("m%02d", k)
		edges = append(edges,
			edge(fmt.Sprintf("p.First%d", k), row("a", fu), row(mid, fu)),
			edge(fmt.Sprintf("p.Then%d", k), row(mid, fu), row("b", fu)))
	}
	edges = append(edges, edge("p.Bad", row("b", fu), row("a", fu)))
	cs := lockgraph.New(edges).Cycles(4)
	if len(cs) != 1 {
		t.Fatalf("%d reports, want 1: %s", len(cs), fmtSummaries(summarize(cs)))
	}
	c := cs[0]
	if got := c.GroupStep().Func; got != "p.Bad" || c.Steps[c.Breaker].Func != "p.Bad" {
		t.Errorf("reported by %s (breaker %d), want p.Bad", got, c.Breaker)
	}
	if c.Folded != 14 || len(c.Also) != 5 {
		t.Errorf("folded %d cycles, naming %d; want 14, naming 5", c.Folded, len(c.Also))
	}
	// Every function on the other side: 3 direct, 28 through a table.
	if c.Followers != 31 || len(c.OtherFuncs()) != 31 {
		t.Errorf("%d followers (%d other functions), want 31", c.Followers, len(c.OtherFuncs()))
	}

	// Two independent mistakes stay two reports.
	edges = append(edges, edge("p.KeepXY", row("x", fu), row("y", fu)), edge("p.KeepXY2", row("x", fu), row("y", fu)),
		edge("p.BadYX", row("y", fu), row("x", fu)))
	if cs := lockgraph.New(edges).Cycles(4); len(cs) != 2 {
		t.Errorf("%d reports for two mistakes, want 2: %s", len(cs), fmtSummaries(summarize(cs)))
	}
}

// TestGatedByConflictingHolds checks the rule that two paths which each
// hold, before their pair, locks that conflict with each other cannot
// deadlock on the pair: PostgreSQL makes one wait for the other first.
// TestGatedByKeyedGates checks the keyed gates: a parent row locked first,
// keyed by the values that also choose the rows of both locks of each
// path. Two paths gate each other only if the rows one waits for and the
// rows the other holds hold the parent's values in the same columns.
func TestGatedByKeyedGates(t *testing.T) {
	fu := lockmodel.ForUpdate
	run := row("runs", fu)
	keyed := func(parent lockgraph.Lock, shape, held, wanted string) lockgraph.KeyedGate {
		return lockgraph.KeyedGate{Lock: parent, Shape: shape, Held: held, Wanted: wanted}
	}
	const shape = "run_id=$ AND shard_id=$"
	ta := keyed(run, shape, "timers:run=,shard=", "activities:run=,shard=")
	at := keyed(run, shape, "activities:run=,shard=", "timers:run=,shard=")
	tests := []struct {
		name   string
		keyed  [2][]lockgraph.KeyedGate
		cycles int
	}{
		{"both paths under the run's row", [2][]lockgraph.KeyedGate{{ta}, {at}}, 0},
		{"one path without it", [2][]lockgraph.KeyedGate{{ta}, nil}, 1},
		{"parent rows of another shape", [2][]lockgraph.KeyedGate{{ta}, {keyed(run, "run_id=$", at.Held, at.Wanted)}}, 1},
		{"the values in other columns", [2][]lockgraph.KeyedGate{{ta}, {keyed(run, shape, "activities:parent_run=,shard=", "timers:parent_run=,shard=")}}, 1},
		{"one pair of paths tied is enough", [2][]lockgraph.KeyedGate{{ta}, {keyed(run, shape, "activities:run=,shard=", "timers:parent_run=,shard=")}}, 0},
		{"shared parent locks", [2][]lockgraph.KeyedGate{
			{keyed(row("runs", lockmodel.ForShare), shape, ta.Held, ta.Wanted)},
			{keyed(row("runs", lockmodel.ForShare), shape, at.Held, at.Wanted)},
		}, 1},
		{"another parent table", [2][]lockgraph.KeyedGate{{ta}, {keyed(row("shards", fu), shape, at.Held, at.Wanted)}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := edge("p.A", row("timers", fu), row("activities", fu))
			a.Keyed = tt.keyed[0]
			b := edge("p.B", row("activities", fu), row("timers", fu))
			b.Keyed = tt.keyed[1]
			if got := len(lockgraph.New([]*lockgraph.Edge{a, b}).Cycles(4)); got != tt.cycles {
				t.Errorf("got %d cycles, want %d", got, tt.cycles)
			}
		})
	}
}

func TestGatedByConflictingHolds(t *testing.T) {
	fu := lockmodel.ForUpdate
	with := func(e *lockgraph.Edge, gates ...lockgraph.Lock) *lockgraph.Edge {
		e.Gates = gates
		return e
	}
	ab := func(gates ...lockgraph.Lock) *lockgraph.Edge {
		return with(edge("p.A", row("a", fu), row("b", fu)), gates...)
	}
	bc := func(gates ...lockgraph.Lock) *lockgraph.Edge {
		return with(edge("p.B", row("b", fu), row("c", fu)), gates...)
	}
	ca := func(gates ...lockgraph.Lock) *lockgraph.Edge {
		return with(edge("p.C", row("c", fu), row("a", fu)), gates...)
	}
	ba := func(gates ...lockgraph.Lock) *lockgraph.Edge {
		return with(edge("p.B", row("b", fu), row("a", fu)), gates...)
	}
	truncate := table("t", lockmodel.AccessExclusive)
	rowShare := table("t", lockmodel.RowShare)
	tests := []struct {
		name  string
		steps []*lockgraph.Edge
		want  bool
	}{
		{"TRUNCATE against SELECT ... FOR UPDATE of the table", []*lockgraph.Edge{ab(truncate), ba(rowShare)}, true},
		{"SELECT ... FOR UPDATE on both", []*lockgraph.Edge{ab(rowShare), ba(rowShare)}, false},
		{"a common exclusive gate", []*lockgraph.Edge{ab(adv("1", lockmodel.AdvisoryExclusive, false)), ba(adv("1", lockmodel.AdvisoryExclusive, false))}, true},
		{"a common shared gate", []*lockgraph.Edge{ab(adv("1", lockmodel.AdvisoryShared, false)), ba(adv("1", lockmodel.AdvisoryShared, false))}, false},
		{"gates on different objects", []*lockgraph.Edge{ab(truncate), ba(table("u", lockmodel.RowShare))}, false},
		{"one path of three excludes another", []*lockgraph.Edge{ab(truncate), bc(), ca(rowShare)}, true},
		{"only one path holds anything", []*lockgraph.Edge{ab(truncate), ba()}, false},
		{"one path run twice with a self-conflicting hold", []*lockgraph.Edge{ab(truncate)}, true},
		{"one path run twice with a shared hold", []*lockgraph.Edge{ab(rowShare)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lockgraph.Gated(tt.steps); got != tt.want {
				t.Errorf("Gated = %t, want %t", got, tt.want)
			}
		})
	}
	// And the cycle search honours it.
	if cs := lockgraph.New([]*lockgraph.Edge{ab(truncate), ba(rowShare)}).Cycles(4); len(cs) != 0 {
		t.Errorf("%d cycles between paths PostgreSQL serialises, want 0", len(cs))
	}
}
