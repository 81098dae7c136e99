package multistmt // want package:"sql=true edges=47"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LockOrderWithItems locks an order and its items in one statement: for each
// joined row PostgreSQL locks the orders row, then the order_items row (the
// order of the FROM list).
func LockOrderWithItems(ctx context.Context, tx pgx.Tx, id int64) error { // want LockOrderWithItems:`row:orders FOR UPDATE@p1, row:order_items FOR UPDATE@p1\) holds`
	const lockBoth = `SELECT o.id FROM orders o JOIN order_items i ON i.order_id = o.id
		WHERE o.id = $1 FOR UPDATE`
	_, err := tx.Exec(ctx, lockBoth, id) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of order_items \(FOR UPDATE\), several of them \(a join\)`
	return err
}

// RemoveItems updates the items first and the order second: the opposite
// order.
func RemoveItems(ctx context.Context, tx pgx.Tx, id int64) error { // want RemoveItems:`row:order_items FOR NO KEY UPDATE@p1, .*row:orders FOR NO KEY UPDATE@p1\) holds`
	if _, err := tx.Exec(ctx, "UPDATE order_items SET removed = true WHERE order_id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE orders SET item_count = 0 WHERE id = $1", id) // want `lock-order inversion: rows of order_items and rows of orders are locked in opposite orders`
	return err
}

// ArchiveStale moves rows with a data-modifying CTE: the CTE's DELETE locks
// stale_jobs rows before the main INSERT ... SELECT reads them, on the pool,
// in one statement. Nothing else takes these tables in another order.
func ArchiveStale(ctx context.Context, pool *pgxpool.Pool) error { // want ArchiveStale:`row:stale_jobs FOR UPDATE@p1\)$`
	_, err := pool.Exec(ctx, `WITH moved AS (DELETE FROM stale_jobs WHERE done RETURNING *)
		INSERT INTO archived_jobs SELECT * FROM moved`)
	return err
}
