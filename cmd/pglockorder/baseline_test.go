package main

import (
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// cycleFinding is a lock-order finding whose breaker is fn, inverting the
// order that the functions others keep.
func cycleFinding(fn string, others ...string) finding {
	lock := func(class string) lockgraph.Lock {
		return lockgraph.Lock{Class: lockgraphtest.Class(class), Mode: lockmodel.ForUpdate, Waits: true}
	}
	edge := func(fn, held, wanted string) *lockgraph.Edge {
		return &lockgraph.Edge{Func: fn, Held: lock(held), Wanted: lock(wanted),
			WantedPath: []lockgraph.Frame{{Func: fn, Pos: lockgraphtest.Position("p/p.go:10:2")}}}
	}
	c := &lockgraph.Cycle{Steps: []*lockgraph.Edge{edge(others[0], "row:a", "row:b"), edge(fn, "row:b", "row:a")},
		Breaker: 1, Group: 1, FollowerFuncs: others, Followers: len(others)}
	return finding{Posn: "p/p.go:10:2", Category: "lock-order", Message: "m", cycle: c}
}

// TestBaselineBreakers checks how a baseline treats one report per breaker:
// a path fixed on the other side is still the accepted finding, a new path
// on the other side is a new finding, and the entry counts as fixed only
// when its breaker is no longer reported.
func TestBaselineBreakers(t *testing.T) {
	accepted := cycleFinding("p.Bad", "p.A", "p.B")
	b := &baselineFile{Version: baselineVersion, Findings: []baselineEntry{{
		Fingerprint: fingerprint(accepted), Category: accepted.Category, Breaker: breakerKey(accepted),
		Paths: accepted.cycle.OtherFuncs(),
	}}}
	tests := []struct {
		name              string
		findings          []finding
		out, known, fixed int
	}{
		{"unchanged", []finding{accepted}, 0, 1, 0},
		{"a path on the other side fixed", []finding{cycleFinding("p.Bad", "p.A")}, 0, 1, 0},
		{"a new path on the other side", []finding{cycleFinding("p.Bad", "p.A", "p.B", "p.C")}, 1, 0, 0},
		{"another breaker", []finding{cycleFinding("p.Worse", "p.A", "p.B")}, 1, 0, 1},
		{"fixed", nil, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, known, gone := b.filter(tt.findings)
			if len(out) != tt.out || known != tt.known || gone != tt.fixed {
				t.Errorf("filter: %d new, %d known, %d fixed; want %d, %d, %d", len(out), known, gone, tt.out, tt.known, tt.fixed)
			}
		})
	}
	if identity(accepted) != identity(cycleFinding("p.Bad", "p.A", "p.B", "p.C")) {
		t.Error("a new path on the other side changed the SARIF identity of the breaker's alert")
	}
	if fingerprint(accepted) == fingerprint(cycleFinding("p.Bad", "p.A", "p.B", "p.C")) {
		t.Error("a new path on the other side kept the fingerprint")
	}
}
