// Package billing runs the monthly invoice batch job.
package billing

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// InvoiceAccount bills one account. It guards the account with a session
// advisory lock on a dedicated connection, then locks the account's
// subscription and its usage records, in that order.
func InvoiceAccount(ctx context.Context, pool *pgxpool.Pool, accountID int64) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", accountID); err != nil {
		return fmt.Errorf("lock account %d: %w", accountID, err)
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", accountID) //nolint:errcheck

	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck

	var plan string
	err = tx.QueryRow(ctx, `SELECT plan FROM subscriptions WHERE account_id = $1 FOR UPDATE`, accountID).Scan(&plan)
	if err != nil {
		return fmt.Errorf("lock subscription: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT id, units FROM usage_records WHERE account_id = $1 AND NOT billed FOR UPDATE`, accountID)
	if err != nil {
		return fmt.Errorf("lock usage: %w", err)
	}
	var total int64
	for rows.Next() {
		var id, units int64
		if err := rows.Scan(&id, &units); err != nil {
			return err
		}
		total += units
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO invoices (account_id, plan, units) VALUES ($1, $2, $3)`, accountID, plan, total); err != nil {
		return fmt.Errorf("insert invoice: %w", err)
	}
	return tx.Commit(ctx)
}
