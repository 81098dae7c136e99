package pgtruth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/pgtest"
	"github.com/pglockorder/pglockorder/internal/repro"
)

const exclusionSchema = `
CREATE TABLE ex_t (id int PRIMARY KEY);
CREATE TABLE ex_a (id int PRIMARY KEY, v int);
CREATE TABLE ex_b (id int PRIMARY KEY, v int);
INSERT INTO ex_t VALUES (1);
INSERT INTO ex_a VALUES (1, 0);
INSERT INTO ex_b VALUES (1, 0);
`

// exclusionPath is one of two paths that invert ex_a and ex_b, each after
// a statement on ex_t.
type exclusionPath struct {
	first, held, wanted string
}

// tableHold is the lock a path's first statement holds on ex_t, as the
// lock model reads it.
func (p exclusionPath) tableHold(t *testing.T) lockgraph.Lock {
	t.Helper()
	for _, e := range lockmodel.Analyze(p.first).Effects {
		if e.Kind == lockmodel.Acquire && e.Lock.Kind == lockmodel.Table && e.Lock.Table == "ex_t" {
			return lockgraph.Lock{Class: lockgraph.TableOf("ex_t"), Mode: e.Lock.Mode, Waits: true}
		}
	}
	t.Fatalf("the model takes no lock on ex_t in %q", p.first)
	return lockgraph.Lock{}
}

// TestExclusionSerialises proves the rule that two paths holding, before
// their pair, locks that conflict with each other cannot deadlock on the
// pair (lockgraph.Gated): on the server, in both orders, the second path
// cannot even take its first lock while the first path holds its own, so
// the deadlock interleaving never arises; the same inversion without the
// conflicting holds deadlocks.
func TestExclusionSerialises(t *testing.T) {
	db := pgtest.ScratchDB(t)
	pgtest.Exec(t, pgtest.Connect(t, db), exclusionSchema)
	maintenance := exclusionPath{"TRUNCATE ex_t", "UPDATE ex_a SET v = 1 WHERE id = 1", "UPDATE ex_b SET v = 1 WHERE id = 1"}
	hot := exclusionPath{"SELECT id FROM ex_t WHERE id = 1 FOR UPDATE", "UPDATE ex_b SET v = 2 WHERE id = 1", "UPDATE ex_a SET v = 2 WHERE id = 1"}
	reader := exclusionPath{"SELECT count(*) FROM ex_t", "UPDATE ex_a SET v = 3 WHERE id = 1", "UPDATE ex_b SET v = 3 WHERE id = 1"}

	edge := func(p exclusionPath) *lockgraph.Edge {
		return &lockgraph.Edge{
			Held:   lockgraph.Lock{Class: lockgraph.RowsOf(strings.Fields(p.held)[1]), Mode: lockmodel.ForNoKeyUpdate, Waits: true},
			Wanted: lockgraph.Lock{Class: lockgraph.RowsOf(strings.Fields(p.wanted)[1]), Mode: lockmodel.ForNoKeyUpdate, Waits: true},
			Gates:  []lockgraph.Lock{p.tableHold(t)},
		}
	}
	replay := func(a, b exclusionPath) (*pgtest.Outcome, error) {
		session := func(name string, p exclusionPath) *repro.Session {
			return &repro.Session{Name: name, Tx: true,
				Hold: []repro.Step{{SQL: p.first, Lock: "the first lock"}, {SQL: p.held, Lock: "the held lock"}},
				Wait: &repro.Step{SQL: p.wanted, Lock: "the wanted lock"}}
		}
		sc := &repro.Script{Sessions: []*repro.Session{session("s1", a), session("s2", b)}, WaitOrder: []int{0, 1}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return pgtest.Replay(ctx, db, sc, nil)
	}

	// TRUNCATE against SELECT ... FOR UPDATE of the same table: the rule
	// says serialised, in both orders, and so does the server.
	if !lockgraph.Gated([]*lockgraph.Edge{edge(maintenance), edge(hot)}) {
		t.Fatal("lockgraph.Gated does not serialise TRUNCATE against SELECT ... FOR UPDATE")
	}
	for _, order := range [][2]exclusionPath{{maintenance, hot}, {hot, maintenance}} {
		out, err := replay(order[0], order[1])
		if err == nil {
			t.Errorf("%q then %q: the second path took its first lock while the first held its own: %v", order[0].first, order[1].first, out)
			continue
		}
		if !strings.Contains(err.Error(), "55P03") {
			t.Errorf("%q then %q: want the second path to wait for the first (lock_timeout, 55P03), got %v", order[0].first, order[1].first, err)
		}
	}

	// Holds that do not conflict (a plain read's ACCESS SHARE against ROW
	// SHARE): no exclusion, and the inversion deadlocks.
	if lockgraph.Gated([]*lockgraph.Edge{edge(reader), edge(hot)}) {
		t.Fatal("lockgraph.Gated serialises two paths whose holds do not conflict")
	}
	out, err := replay(reader, hot)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	if out.Deadlocks() != 1 {
		t.Errorf("control: the inversion without conflicting holds did not deadlock: %v", out)
	}
}

// TestAdvisoryGateSerialises proves the rule on the usual gate, an
// exclusive transaction advisory lock that both paths take before their
// pair, wherever the code takes it (the function, a helper that begins the
// transaction, a runner, or every caller of the function that holds the
// pair: the server sees one session holding one lock): the second path
// waits at the gate, in both orders. Shared advisory locks are no gate: the
// same inversion behind them deadlocks.
func TestAdvisoryGateSerialises(t *testing.T) {
	db := pgtest.ScratchDB(t)
	pgtest.Exec(t, pgtest.Connect(t, db), exclusionSchema)
	hold := func(first string) lockgraph.Lock {
		for _, e := range lockmodel.Analyze(first).Effects {
			if e.Kind == lockmodel.Acquire && e.Lock.Kind == lockmodel.Advisory {
				return lockgraph.Lock{Class: lockgraph.AdvisoryOf(e.Lock.Key.String(), ""), Mode: e.Lock.Mode, Waits: true}
			}
		}
		t.Fatalf("the model takes no advisory lock in %q", first)
		return lockgraph.Lock{}
	}
	edge := func(p exclusionPath) *lockgraph.Edge {
		return &lockgraph.Edge{
			Held:   lockgraph.Lock{Class: lockgraph.RowsOf(strings.Fields(p.held)[1]), Mode: lockmodel.ForNoKeyUpdate, Waits: true},
			Wanted: lockgraph.Lock{Class: lockgraph.RowsOf(strings.Fields(p.wanted)[1]), Mode: lockmodel.ForNoKeyUpdate, Waits: true},
			Gates:  []lockgraph.Lock{hold(p.first)},
		}
	}
	replay := func(a, b exclusionPath) (*pgtest.Outcome, error) {
		session := func(name string, p exclusionPath) *repro.Session {
			return &repro.Session{Name: name, Tx: true,
				Hold: []repro.Step{{SQL: p.first, Lock: "the gate"}, {SQL: p.held, Lock: "the held lock"}},
				Wait: &repro.Step{SQL: p.wanted, Lock: "the wanted lock"}}
		}
		sc := &repro.Script{Sessions: []*repro.Session{session("s1", a), session("s2", b)}, WaitOrder: []int{0, 1}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return pgtest.Replay(ctx, db, sc, nil)
	}
	post := exclusionPath{"SELECT pg_advisory_xact_lock(930)", "UPDATE ex_a SET v = 1 WHERE id = 1", "UPDATE ex_b SET v = 1 WHERE id = 1"}
	reverse := exclusionPath{"SELECT pg_advisory_xact_lock(930)", "UPDATE ex_b SET v = 2 WHERE id = 1", "UPDATE ex_a SET v = 2 WHERE id = 1"}
	if !lockgraph.Gated([]*lockgraph.Edge{edge(post), edge(reverse)}) {
		t.Fatal("lockgraph.Gated does not serialise two paths behind one exclusive advisory lock")
	}
	for _, order := range [][2]exclusionPath{{post, reverse}, {reverse, post}} {
		out, err := replay(order[0], order[1])
		if err == nil {
			t.Errorf("the second path passed the gate while the first held it: %v", out)
			continue
		}
		if !strings.Contains(err.Error(), "55P03") {
			t.Errorf("want the second path to wait at the gate (lock_timeout, 55P03), got %v", err)
		}
	}

	shared := exclusionPath{"SELECT pg_advisory_xact_lock_shared(930)", post.held, post.wanted}
	sharedReverse := exclusionPath{"SELECT pg_advisory_xact_lock_shared(930)", reverse.held, reverse.wanted}
	if lockgraph.Gated([]*lockgraph.Edge{edge(shared), edge(sharedReverse)}) {
		t.Fatal("lockgraph.Gated serialises two paths behind a shared advisory lock")
	}
	out, err := replay(shared, sharedReverse)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	if out.Deadlocks() != 1 {
		t.Errorf("control: the inversion behind a shared advisory lock did not deadlock: %v", out)
	}
}
