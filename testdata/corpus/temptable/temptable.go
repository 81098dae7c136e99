package temptable // want package:`sql=true edges=16 temp=\[tmp_slots\]}$`

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Rebalance stages slots in a temporary table, then updates the real slots.
func Rebalance(ctx context.Context, pool *pgxpool.Pool) error { // want Rebalance:`row:tmp_slots FOR NO KEY UPDATE@L0, .*row:slots FOR NO KEY UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE tmp_slots ON COMMIT DROP AS
			SELECT id, owner FROM slots WHERE owner IS NULL`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE tmp_slots SET owner = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE slots s SET owner = t.owner FROM tmp_slots t WHERE s.id = t.id")
		return err
	})
}

// Release updates the real slots first, then its own temporary table: each
// session has its own tmp_slots, so the opposite order deadlocks with
// nobody.
func Release(ctx context.Context, pool *pgxpool.Pool) error { // want Release:`row:slots FOR NO KEY UPDATE@L0, .*row:tmp_slots FOR NO KEY UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE tmp_slots (id int, owner int) ON COMMIT DROP"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE slots SET owner = NULL WHERE owner = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE tmp_slots SET owner = NULL")
		return err
	})
}
