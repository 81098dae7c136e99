package pgxv4 // want package:"sql=true edges=14"

import (
	"context"

	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
)

// Ledger uses pgx v4: BeginFunc is a method there.
type Ledger struct {
	pool *pgxpool.Pool
}

// Post locks the account, then the ledger.
func (l *Ledger) Post(ctx context.Context, id int64) error { // want Post:`row:v4_accounts FOR UPDATE@L0, .*row:v4_ledger FOR NO KEY UPDATE@L0\)$`
	return l.pool.BeginFunc(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT id FROM v4_accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE v4_ledger SET posted = true WHERE account_id = $1", id) // want `lock-order inversion: rows of v4_accounts and rows of v4_ledger are locked in opposite orders`
		return err
	})
}

// Reverse locks the ledger, then the account, on a dedicated connection.
func (l *Ledger) Reverse(ctx context.Context, id int64) error { // want Reverse:`row:v4_ledger FOR NO KEY UPDATE@L1, .*row:v4_accounts FOR NO KEY UPDATE@L1\)$`
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE v4_ledger SET posted = false WHERE account_id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE v4_accounts SET balance = balance - 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Audit runs both in autocommit on the pool: nothing is held.
func (l *Ledger) Audit(ctx context.Context, id int64) error { // want Audit:`@p0.pool\)$`
	if _, err := l.pool.Exec(ctx, "UPDATE v4_ledger SET audited = true WHERE account_id = $1", id); err != nil {
		return err
	}
	_, err := l.pool.Exec(ctx, "UPDATE v4_accounts SET audited = true WHERE id = $1", id)
	return err
}
