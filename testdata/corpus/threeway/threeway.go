package threeway // want package:"sql=true edges=36"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Warehouse moves goods between bins, pallets and trucks.
type Warehouse struct {
	pool *pgxpool.Pool
}

func (w *Warehouse) inTx(ctx context.Context, f func(pgx.Tx) error) error { // want inTx:`invokes\(p2\(0=L0\(transaction\)\)\)`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Pick locks a bin, then a pallet.
func (w *Warehouse) Pick(ctx context.Context, id int64) error { // want Pick:`locks\(.*row:bins FOR NO KEY UPDATE@L0.*row:pallets FOR NO KEY UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE bins SET qty = qty - 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE pallets SET qty = qty + 1 WHERE id = $1", id); err != nil { // want `lock-order inversion: rows of bins, rows of pallets, rows of trucks are locked in a cycle of 3 paths`
		return err
	}
	return tx.Commit(ctx)
}

// Load locks a pallet, then a truck.
func (w *Warehouse) Load(ctx context.Context, id int64) error { // want Load:`locks\(.*row:pallets FOR NO KEY UPDATE@L0.*row:trucks FOR NO KEY UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE pallets SET truck_id = $1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE trucks SET load = load + 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Unload locks a truck, then a bin: it closes the cycle bins -> pallets ->
// trucks -> bins.
func (w *Warehouse) Unload(ctx context.Context, id int64) error { // want Unload:`locks\(.*row:trucks FOR NO KEY UPDATE@L0.*row:bins FOR NO KEY UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE trucks SET load = load - 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE bins SET qty = qty + 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// The same three kinds of object, in one global order: no cycle.

// Sort locks a shelf, then a crate.
func (w *Warehouse) Sort(ctx context.Context, id int64) error { // want Sort:`locks\(.*row:shelves FOR NO KEY UPDATE@C0/L0.*row:crates FOR NO KEY UPDATE@C0/L0`
	return w.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE shelves SET qty = qty - 1 WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE crates SET qty = qty + 1 WHERE id = $1", id)
		return err
	})
}

// Pack locks a crate, then a van.
func (w *Warehouse) Pack(ctx context.Context, id int64) error { // want Pack:`locks\(.*row:crates FOR NO KEY UPDATE@C0/L0.*row:vans FOR NO KEY UPDATE@C0/L0`
	return w.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE crates SET van_id = $1 WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE vans SET load = load + 1 WHERE id = $1", id)
		return err
	})
}

// Dispatch locks a shelf, then a van: the same direction as the others.
func (w *Warehouse) Dispatch(ctx context.Context, id int64) error { // want Dispatch:`locks\(.*row:shelves FOR NO KEY UPDATE@C0/L0.*row:vans FOR NO KEY UPDATE@C0/L0`
	return w.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE shelves SET qty = qty + 1 WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE vans SET load = load - 1 WHERE id = $1", id)
		return err
	})
}
