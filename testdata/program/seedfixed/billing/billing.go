// Package billing is the seed's batch job, fixed: the account's advisory
// lock is a transaction lock, and every path locks subscriptions before
// usage.
package billing

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Job invoices accounts.
type Job struct{ Pool *pgxpool.Pool }

// InvoiceAccount guards the account with a transaction advisory lock,
// released with the transaction whatever happens.
func (j *Job) InvoiceAccount(ctx context.Context, accountID int64) error {
	return pgx.BeginFunc(ctx, j.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", accountID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM usage_records WHERE account_id = $1 FOR UPDATE", accountID)
		return err
	})
}

// Reprice guards the account with a session lock on a dedicated
// connection, unlocked there on every path.
func (j *Job) Reprice(ctx context.Context, accountID int64) error {
	conn, err := j.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", accountID); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", accountID) //nolint:errcheck
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE usage_records SET price = price * 2 WHERE account_id = $1", accountID)
		return err
	})
}
