package crossconn

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Reconcile runs a transaction on the pgx.Conn under a pooled connection,
// then touches the same row through the pooled connection itself: Conn()
// is that connection, not another one, so the UPDATE runs inside the
// transaction and waits for nothing. Silent.
func Reconcile(ctx context.Context, pool *pgxpool.Pool, accountID int64) error { // want Reconcile:`locks\(`
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.Conn().Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", accountID); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "UPDATE accounts SET last_activity = now() WHERE id = $1", accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Audit writes through the transaction's own connection while the
// transaction is open: the same session, inside the transaction. Silent.
func Audit(ctx context.Context, pool *pgxpool.Pool, accountID int64) error { // want Audit:`locks\(`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", accountID); err != nil {
			return err
		}
		_, err := tx.Conn().Exec(ctx, "UPDATE accounts SET last_activity = now() WHERE id = $1", accountID)
		return err
	})
}
