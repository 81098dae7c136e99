package pgtruth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/pgtest"
)

// lockStmt is a statement that takes one lock of the matrix under test on
// the object of worker w (its row of m, its table ta_w or its advisory key).
type lockStmt struct {
	name string
	// sql is a format with one %d: the worker's row id, table suffix or
	// advisory key.
	sql string
	// mode is the lock the statement takes on the object, per
	// pg-lock-facts §4 and §8.
	mode lockmodel.Mode
	// schema is set when the model can tell the mode only from the schema
	// (a key column, a foreign key): TestMatrixStatementsModel checks the
	// model's reading of it with the schema.
	schema bool
}

// rowStmts are the row-lock requests: the four explicit modes and the
// implicit ones of UPDATE, DELETE and an FK child INSERT.
var rowStmts = []lockStmt{
	{"FOR KEY SHARE", "SELECT id FROM m WHERE id = %d FOR KEY SHARE", lockmodel.ForKeyShare, false},
	{"FOR SHARE", "SELECT id FROM m WHERE id = %d FOR SHARE", lockmodel.ForShare, false},
	{"FOR NO KEY UPDATE", "SELECT id FROM m WHERE id = %d FOR NO KEY UPDATE", lockmodel.ForNoKeyUpdate, false},
	{"FOR UPDATE", "SELECT id FROM m WHERE id = %d FOR UPDATE", lockmodel.ForUpdate, false},
	{"UPDATE non-key", "UPDATE m SET v = v + 1 WHERE id = %d", lockmodel.ForNoKeyUpdate, false},
	{"UPDATE indexed non-unique", "UPDATE m SET ix = ix + 1 WHERE id = %d", lockmodel.ForNoKeyUpdate, false},
	{"UPDATE unique", "UPDATE m SET k = k + 1000 WHERE id = %d", lockmodel.ForUpdate, true},
	{"UPDATE primary key", "UPDATE m SET id = id + 1000 WHERE id = %d", lockmodel.ForUpdate, true},
	{"DELETE", "DELETE FROM m WHERE id = %d", lockmodel.ForUpdate, false},
	{"INSERT FK child", "INSERT INTO mc (m_id) VALUES (%d)", lockmodel.ForKeyShare, true},
}

const matrixSchema = `
CREATE TABLE m (id int PRIMARY KEY, k int UNIQUE, ix int, v int);
CREATE INDEX m_ix ON m (ix);
CREATE TABLE mc (id serial PRIMARY KEY, m_id int REFERENCES m (id));
`

// tableModes are the eight table-lock modes, weakest first.
var tableModes = []lockmodel.Mode{
	lockmodel.AccessShare, lockmodel.RowShare, lockmodel.RowExclusive, lockmodel.ShareUpdateExclusive,
	lockmodel.Share, lockmodel.ShareRowExclusive, lockmodel.Exclusive, lockmodel.AccessExclusive,
}

// workers is the number of pairs checked at once, each on its own object.
const workers = 6

// lockTimeout bounds the wait of a request that conflicts. A request that
// does not conflict returns at once, so the value only sets how long the
// test takes, not what it finds.
const lockTimeout = "200ms"

// pair is one cell: held is taken by session A, then requested by B.
type pair struct {
	held, requested lockStmt
	// try is set when B's statement returns false instead of waiting
	// (pg_try_advisory_*).
	try bool
}

// TestConflictMatrices runs every pair of lock requests in two sessions and
// checks that the second blocks exactly where lockmodel.ModesConflict says.
func TestConflictMatrices(t *testing.T) {
	dsn := pgtest.ScratchDB(t)
	setup := pgtest.Connect(t, dsn)
	pgtest.Exec(t, setup, matrixSchema)
	for w := 1; w <= workers; w++ {
		pgtest.Exec(t, setup, fmt.Sprintf("INSERT INTO m VALUES (%d, %d, %d, 0); CREATE TABLE ta_%d (id int)", w, w, w, w))
	}

	pairs := matrixPairs()

	jobs := make(chan pair)
	type result struct {
		p       pair
		blocked bool
		err     error
	}
	results := make(chan result, len(pairs))
	var wg sync.WaitGroup
	for w := 1; w <= workers; w++ {
		a, b := pgtest.Connect(t, dsn), pgtest.Connect(t, dsn)
		wg.Go(func() {
			for p := range jobs {
				blocked, err := runPair(a, b, w, p)
				results <- result{p, blocked, err}
			}
		})
	}
	for _, p := range pairs {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	close(results)

	checked := 0
	for r := range results {
		if r.err != nil {
			t.Errorf("%s held, %s requested: %v", r.p.held.name, r.p.requested.name, r.err)
			continue
		}
		checked++
		if want := lockmodel.ModesConflict(r.p.held.mode, r.p.requested.mode); r.blocked != want {
			t.Errorf("%s held, %s requested: server blocked=%t, lockmodel.ModesConflict(%v, %v)=%t",
				r.p.held.name, r.p.requested.name, r.blocked, r.p.held.mode, r.p.requested.mode, want)
		}
	}
	t.Logf("%d pairs checked against the server (%d row, %d table, %d advisory)",
		checked, len(rowStmts)*len(rowStmts), len(tableModes)*len(tableModes), checked-len(rowStmts)*len(rowStmts)-len(tableModes)*len(tableModes))
}

// runPair takes p.held on session a and then p.requested on session b, both
// on worker w's object, and reports whether b had to wait.
func runPair(a, b *pgx.Conn, w int, p pair) (blocked bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func() {
		for _, c := range []*pgx.Conn{a, b} {
			if rerr := c.PgConn().Exec(ctx, "ROLLBACK").Close(); rerr != nil && err == nil {
				err = fmt.Errorf("rollback: %w", rerr)
			}
		}
	}()
	if err := a.PgConn().Exec(ctx, "BEGIN; "+fmt.Sprintf(p.held.sql, w)).Close(); err != nil {
		return false, fmt.Errorf("session A: %w", err)
	}
	if err := b.PgConn().Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '"+lockTimeout+"'").Close(); err != nil {
		return false, fmt.Errorf("session B: %w", err)
	}
	q := fmt.Sprintf(p.requested.sql, w)
	if p.try {
		var got bool
		if err := b.QueryRow(ctx, q).Scan(&got); err != nil {
			return false, fmt.Errorf("session B: %w", err)
		}
		return !got, nil
	}
	err = b.PgConn().Exec(ctx, q).Close()
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &pgErr) && pgErr.Code == "55P03":
		return true, nil
	}
	return false, fmt.Errorf("session B: %w", err)
}

// strongestModeOf returns the strongest explicit or row lock of kind k of
// an analysis on table m (or ta_1), or the advisory lock, or 0.
func strongestModeOf(a *lockmodel.Analysis, k lockmodel.Kind) lockmodel.Mode {
	var best lockmodel.Mode
	for _, e := range a.Effects {
		l := e.Lock
		if e.Kind != lockmodel.Acquire || l.Kind != k || l.Implicit {
			continue
		}
		if k != lockmodel.Advisory && l.Table != "m" && !strings.HasPrefix(l.Table, "ta_") {
			continue
		}
		if l.Mode > best {
			best = l.Mode
		}
	}
	return best
}

// matrixPairs returns every pair of requests of the three matrices.
func matrixPairs() []pair {
	var pairs []pair
	for _, h := range rowStmts {
		for _, r := range rowStmts {
			pairs = append(pairs, pair{held: h, requested: r})
		}
	}
	for _, h := range tableModes {
		for _, r := range tableModes {
			held := lockStmt{name: "LOCK " + h.String(), sql: "LOCK TABLE ta_%d IN " + h.String() + " MODE", mode: h}
			req := lockStmt{name: "LOCK " + r.String(), sql: "LOCK TABLE ta_%d IN " + r.String() + " MODE NOWAIT", mode: r}
			pairs = append(pairs, pair{held: held, requested: req})
		}
	}
	advisory := []struct {
		mode      lockmodel.Mode
		take, try string
	}{
		{lockmodel.AdvisoryShared, "SELECT pg_advisory_xact_lock_shared(%d)", "SELECT pg_try_advisory_xact_lock_shared(%d)"},
		{lockmodel.AdvisoryExclusive, "SELECT pg_advisory_xact_lock(%d)", "SELECT pg_try_advisory_xact_lock(%d)"},
	}
	for _, h := range advisory {
		for _, r := range advisory {
			pairs = append(pairs, pair{
				held:      lockStmt{name: h.mode.String(), sql: h.take, mode: h.mode},
				requested: lockStmt{name: "try " + r.mode.String(), sql: r.try, mode: r.mode},
				try:       true,
			})
		}
	}
	return pairs
}

// TestMatrixStatementsModel checks that lockmodel reads each statement of
// the matrix test as the mode the matrix is checked with (with the
// schema for the modes that depend on it); otherwise a correct matrix would
// prove nothing about the analysis of real SQL. It needs no server.
func TestMatrixStatementsModel(t *testing.T) {
	schema := lockmodel.NewSchema()
	if err := schema.Parse(matrixSchema); err != nil {
		t.Fatal(err)
	}
	for _, withSchema := range []bool{false, true} {
		var sc *lockmodel.Schema
		if withSchema {
			sc = schema
		}
		for _, p := range matrixPairs() {
			for _, s := range []lockStmt{p.held, p.requested} {
				if s.schema && !withSchema {
					continue
				}
				sql := fmt.Sprintf(s.sql, 1)
				if got := strongestModeOf(sc.Analyze(sql), s.mode.Kind()); got != s.mode {
					t.Errorf("lockmodel (schema %t) reads %q as %v, want %v", withSchema, sql, got, s.mode)
				}
			}
		}
	}
}
