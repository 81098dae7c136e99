package commitbetween

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ImportBatch tries an optional step in a savepoint and rolls it back on
// failure; the outer transaction, and its lock on import_batches, go on.
func ImportBatch(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ImportBatch:`row:import_batches FOR NO KEY UPDATE@L0, .*row:import_rows FOR NO KEY UPDATE@L0\)$`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE import_batches SET state = 'running' WHERE id = $1", id); err != nil {
		return err
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return err
	}
	if _, err := sp.Exec(ctx, "UPDATE import_stats SET tries = tries + 1"); err != nil {
		_ = sp.Rollback(ctx)
	} else if err := sp.Commit(ctx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE import_rows SET done = true WHERE batch_id = $1", id); err != nil { // want `lock-order inversion: rows of import_batches and rows of import_rows`
		return err
	}
	return tx.Commit(ctx)
}

// FinishRows locks the rows, then the batch: the opposite order.
func FinishRows(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FinishRows:`row:import_rows FOR NO KEY UPDATE@L0, .*row:import_batches FOR NO KEY UPDATE@L0\)$`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE import_rows SET done = false WHERE batch_id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE import_batches SET state = 'reopened' WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
