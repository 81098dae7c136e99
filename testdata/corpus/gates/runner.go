package gates

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A transaction runner that takes a gate before it runs its callback
// serialises the callbacks: their own lock order does not matter. The
// callbacks' pairs are drawn where the runner runs them, with the gate.

// Shelves runs its work in gated transactions.
type Shelves struct{ pool *pgxpool.Pool }

const shelfGate = 911

// inGated runs fn in a transaction that first takes the shelf gate.
func (s *Shelves) inGated(ctx context.Context, fn func(tx pgx.Tx) error) error { // want inGated:`^locks\(advisory:\(911\) exclusive@L0\) invokes\(p2\(0=L0\(transaction\)\) holding\[0\]\)$`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", shelfGate); err != nil {
			return err
		}
		return fn(tx)
	})
}

// inPlain runs fn in a transaction, with no gate.
func (s *Shelves) inPlain(ctx context.Context, fn func(tx pgx.Tx) error) error { // want inPlain:`^invokes\(p2\(0=L0\(transaction\)\)\)$`
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// Restock locks the shelf, then its bin, under the gate.
func (s *Shelves) Restock(ctx context.Context, id int64) error { // want Restock:`^locks\(advisory:\(911\) exclusive@C0/L0, .*row:gt_shelves FOR UPDATE@C0/L0, .*row:gt_bins FOR UPDATE@C0/L0\)`
	return s.inGated(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM gt_shelves WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM gt_bins WHERE shelf_id = $1 ORDER BY id FOR UPDATE", id)
		return err
	})
}

// Empty locks the bins, then the shelf, under the same gate: serialised
// with Restock, no deadlock.
func (s *Shelves) Empty(ctx context.Context, id int64) error { // want Empty:`^locks\(advisory:\(911\) exclusive@C0/L0, .*row:gt_bins FOR UPDATE@C0/L0, .*row:gt_shelves FOR UPDATE@C0/L0\)`
	return s.inGated(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM gt_bins WHERE shelf_id = $1 ORDER BY id FOR UPDATE", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM gt_shelves WHERE id = $1 FOR UPDATE", id)
		return err
	})
}

// Audit locks the bins, then the shelf, through the runner without the
// gate: against Restock.
func (s *Shelves) Audit(ctx context.Context, id int64) error { // want Audit:`^locks\(.*row:gt_bins FOR UPDATE@C0/L0, .*row:gt_shelves FOR UPDATE@C0/L0\)`
	return s.inPlain(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM gt_bins WHERE shelf_id = $1 ORDER BY id FOR UPDATE", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM gt_shelves WHERE id = $1 FOR UPDATE", id) // want `lock-order inversion: rows of gt_bins and rows of gt_shelves are locked in opposite orders`
		return err
	})
}
