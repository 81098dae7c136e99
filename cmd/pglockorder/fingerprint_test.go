package main

import (
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

func TestSplitPosn(t *testing.T) {
	for _, tc := range []struct {
		in        string
		file      string
		line, col int
	}{
		{"api/api.go:21:29", "api/api.go", 21, 29},
		{"api/api.go:21", "api/api.go", 21, 0},
		{"api/api.go", "api/api.go", 0, 0},
		{`C:\src\a.go:3:4`, `C:\src\a.go`, 3, 4},
		{"weird:name.go:x:1", "weird:name.go:x", 1, 0},
	} {
		file, line, col := splitPosn(tc.in)
		if file != tc.file || line != tc.line || col != tc.col {
			t.Errorf("splitPosn(%q) = %q, %d, %d; want %q, %d, %d", tc.in, file, line, col, tc.file, tc.line, tc.col)
		}
	}
}

func TestEscapeWorkflowCommand(t *testing.T) {
	if got, want := escapeData("50% done\nnext: a, b\r"), "50%25 done%0Anext: a, b%0D"; got != want {
		t.Errorf("escapeData = %q, want %q", got, want)
	}
	if got, want := escapeProperty("pglockorder: a,b%"), "pglockorder%3A a%2Cb%25"; got != want {
		t.Errorf("escapeProperty = %q, want %q", got, want)
	}
}

// TestFingerprint checks what a fingerprint depends on: the locks, modes
// and functions of a cycle, not where they are.
func TestFingerprint(t *testing.T) {
	edge := func(fn, held, wanted, pos string, mode lockmodel.Mode) *lockgraph.Edge {
		return &lockgraph.Edge{
			Func:       fn,
			Held:       lockgraph.Lock{Class: lockgraphtest.Class(held), Mode: mode, Waits: true},
			Wanted:     lockgraph.Lock{Class: lockgraphtest.Class(wanted), Mode: mode, Waits: true},
			WantedPath: []lockgraph.Frame{{Func: fn, Pos: lockgraphtest.Position(pos)}},
		}
	}
	cycle := func(fn1, fn2, pos string, mode lockmodel.Mode) finding {
		return finding{Posn: pos, Category: "lock-order", Message: "m at " + pos, cycle: &lockgraph.Cycle{Steps: []*lockgraph.Edge{
			edge(fn1, "row:a", "row:b", pos, mode),
			edge(fn2, "row:b", "row:a", pos, mode),
		}}}
	}
	base := fingerprint(cycle("p.F", "p.G", "p/p.go:10:2", lockmodel.ForUpdate))
	if got := fingerprint(cycle("p.F", "p.G", "p/p.go:99:7", lockmodel.ForUpdate)); got != base {
		t.Error("a line shift changed the fingerprint")
	}
	if got := fingerprint(cycle("p.G", "p.F", "p/p.go:10:2", lockmodel.ForUpdate)); got == base {
		t.Error("the functions of the paths do not count")
	}
	if got := fingerprint(cycle("p.F", "p.H", "p/p.go:10:2", lockmodel.ForUpdate)); got == base {
		t.Error("a new function in the cycle kept the fingerprint")
	}
	if got := fingerprint(cycle("p.F", "p.G", "p/p.go:10:2", lockmodel.ForNoKeyUpdate)); got == base {
		t.Error("the modes do not count")
	}
	leak := finding{Posn: "p/p.go:10:2", Category: "session-advisory-leak", Message: "lock taken at p/p.go:8:3 leaks"}
	moved := finding{Posn: "p/p.go:12:2", Category: "session-advisory-leak", Message: "lock taken at p/p.go:9:3 leaks"}
	if fingerprint(leak) != fingerprint(moved) {
		t.Error("positions in a message changed the fingerprint")
	}
}
