package lockedfirst // want package:"sql=true edges=[0-9]+"

// A transaction that locks a set of rows in one order first (ORDER BY id FOR
// UPDATE) and then writes them one by one, in whatever order its loop
// takes, waits for nothing in the loop: the rows are its own already. The
// twins below lock nothing first, lock in no order, or in a mode that does
// not cover the writes.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Releaser frees held vehicles.
type Releaser struct{ pool *pgxpool.Pool }

// ReleaseHolds locks the held vehicles in id order, then frees each one it
// got back, in the order the rows came.
func (r *Releaser) ReleaseHolds(ctx context.Context, ids []int64) error { // want ReleaseHolds:`locks\(`
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT id FROM lf_vehicles WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids)
		if err != nil {
			return err
		}
		locked, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		for _, id := range locked {
			if _, err := tx.Exec(ctx, "UPDATE lf_vehicles SET status = 'available' WHERE id = $1", id); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rebalance locks both depots in id order, then moves the fleet between
// them in a map's order.
func (r *Releaser) Rebalance(ctx context.Context, a, b int64, n int) error { // want Rebalance:`locks\(`
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM lf_depots WHERE id IN ($1, $2) ORDER BY id FOR UPDATE", min(a, b), max(a, b)); err != nil {
			return err
		}
		for id, delta := range map[int64]int{a: -n, b: n} {
			if _, err := tx.Exec(ctx, "UPDATE lf_depots SET size = size + $2 WHERE id = $1", id, delta); err != nil {
				return err
			}
		}
		return nil
	})
}

// RebalanceUnlocked moves the fleet in a map's order with nothing locked
// first: two calls with the depots swapped can deadlock.
func (r *Releaser) RebalanceUnlocked(ctx context.Context, a, b int64, n int) error { // want RebalanceUnlocked:`locks\(`
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		for id, delta := range map[int64]int{a: -n, b: n} {
			if _, err := tx.Exec(ctx, "UPDATE lf_depots SET size = size + $2 WHERE id = $1", id, delta); err != nil { // want `lock order set by a loop: rows of lf_depots \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a map`
				return err
			}
		}
		return nil
	})
}

// RebalanceShared locks the depots FOR SHARE first, which does not cover
// the updates: each update still waits for the other transaction's share
// lock, in the map's order.
func (r *Releaser) RebalanceShared(ctx context.Context, a, b int64, n int) error { // want RebalanceShared:`locks\(`
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM lf_depots WHERE id IN ($1, $2) ORDER BY id FOR SHARE", min(a, b), max(a, b)); err != nil {
			return err
		}
		for id, delta := range map[int64]int{a: -n, b: n} {
			if _, err := tx.Exec(ctx, "UPDATE lf_depots SET size = size + $2 WHERE id = $1", id, delta); err != nil { // want `lock order set by a loop: rows of lf_depots \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a map` `lock-upgrade deadlock: lockedfirst.Releaser.RebalanceShared holds rows of lf_depots \(FOR SHARE\)`
				return err
			}
		}
		return nil
	})
}

// ReleaseUnordered locks the vehicles in no order first: that lock is the
// mistake, reported, and the loop after it is still set by the loop.
func (r *Releaser) ReleaseUnordered(ctx context.Context, ids []int64) error { // want ReleaseUnordered:`locks\(`
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM lf_vehicles WHERE id = ANY($1) FOR UPDATE", ids); err != nil { // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of lf_vehicles`
			return err
		}
		for _, id := range ids {
			if _, err := tx.Exec(ctx, "UPDATE lf_vehicles SET status = 'available' WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of lf_vehicles \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice ids`
				return err
			}
		}
		return nil
	})
}
