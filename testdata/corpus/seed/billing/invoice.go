package billing // want package:"sql=true edges=10"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// InvoiceAccount guards the account with a session advisory lock on a
// dedicated connection, then locks its subscription and its usage records.
func InvoiceAccount(ctx context.Context, pool *pgxpool.Pool, accountID int64) error { // want InvoiceAccount:`locks\(advisory:\(\?p2\)\|@.*invoice.go:[0-9]+:24 exclusive@L0, .*row:subscriptions FOR UPDATE@L1, .*row:usage_records FOR UPDATE@L1\)`
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", accountID); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", accountID)

	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var plan string
	if err := tx.QueryRow(ctx, "SELECT plan FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID).Scan(&plan); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM usage_records WHERE account_id = $1 FOR UPDATE", accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// PlanPrice is used by the API.
func PlanPrice(plan string) int { return len(plan) }
