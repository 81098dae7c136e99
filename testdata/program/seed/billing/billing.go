// Package billing is the monthly invoice batch job: it guards each account
// with a session advisory lock taken on the pool, then works in a
// transaction on another connection.
package billing

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Job invoices accounts.
type Job struct{ Pool *pgxpool.Pool }

// InvoiceAccount takes the account's advisory lock on a pooled connection,
// then locks the subscription and its usage in a transaction.
func (j *Job) InvoiceAccount(ctx context.Context, accountID int64) error {
	if _, err := j.Pool.Exec(ctx, "SELECT pg_advisory_lock($1)", accountID); err != nil { // want `session-level advisory lock \(<accountid>\) is taken on a connection pool`
		return err
	}
	defer j.Pool.Exec(ctx, "SELECT pg_advisory_unlock($1)", accountID) //nolint:errcheck
	return pgx.BeginFunc(ctx, j.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM usage_records WHERE account_id = $1 FOR UPDATE", accountID) // want `lock-order inversion that hangs: rows of subscriptions and rows of usage_records are locked in opposite orders; PostgreSQL aborts one transaction with 40P01, but billing.Job.InvoiceAccount runs its path under a session-level advisory lock`
		return err
	})
}
