package lockgraph_test

import (
	"go/token"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// TestGuards checks that a cycle step run under a session advisory lock
// taken on a pool is marked as guarded (the seed's hang), and that the same
// lock on a dedicated connection, or a guard edge to another statement, is
// not a guard.
func TestGuards(t *testing.T) {
	inner := edge("billing.Invoice.func1", row("subscriptions", lockmodel.ForUpdate), row("usage", lockmodel.ForUpdate))
	other := edge("api.ChangePlan", row("usage", lockmodel.ForNoKeyUpdate), row("subscriptions", lockmodel.ForNoKeyUpdate))
	// guard builds the edge billing.Invoice draws from its session lock to
	// the statement at pos, on another connection.
	guard := func(pooled bool, pos token.Position) *lockgraph.Edge {
		held := adv("<accountid>", lockmodel.AdvisoryExclusive, true)
		held.Pooled = pooled
		e := crossConn(edge("billing.Invoice", held, row("subscriptions", lockmodel.ForUpdate)))
		e.WantedPath = []lockgraph.Frame{{Func: "billing.Invoice.func1", Pos: pos, What: "SELECT ... FOR UPDATE"}}
		return e
	}
	stmt := inner.HeldPath[0].Pos
	elsewhere := stmt
	elsewhere.Line++
	for _, tc := range []struct {
		name   string
		guard  *lockgraph.Edge
		guards int
		sev    lockgraph.Severity
	}{
		{"session lock on a pool", guard(true, stmt), 1, lockgraph.SessionAdvisory},
		{"session lock on a dedicated connection", guard(false, stmt), 0, lockgraph.Detected},
		{"another statement", guard(true, elsewhere), 0, lockgraph.Detected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var found *lockgraph.Cycle
			for _, c := range lockgraph.New([]*lockgraph.Edge{inner, other, tc.guard}).Cycles(4) {
				if len(c.Steps) == 2 {
					found = c
				}
			}
			if found == nil {
				t.Fatal("no two-step cycle")
			}
			if len(found.Guards) != tc.guards || found.Severity != tc.sev {
				t.Fatalf("guards %+v, severity %v; want %d guards, severity %v", found.Guards, found.Severity, tc.guards, tc.sev)
			}
			if tc.guards > 0 {
				g := found.Guards[0]
				if found.Steps[g.Step] != inner || g.Func != "billing.Invoice" || !g.Lock.Pooled {
					t.Errorf("guard %+v: want billing.Invoice's pooled lock on the step of %s", g, inner.Func)
				}
			}
		})
	}
}
