//go:build fixed

// Package api serves the customer-facing endpoints.
package api

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// UpdateSubscriptionTier changes an account's plan and re-rates its unbilled
// usage. Like the invoice job, it locks the subscription first.
func UpdateSubscriptionTier(ctx context.Context, pool *pgxpool.Pool, accountID int64, plan string) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck

	if _, err := tx.Exec(ctx, `UPDATE subscriptions SET plan = $2 WHERE account_id = $1`, accountID, plan); err != nil {
		return fmt.Errorf("update subscription: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE usage_records SET rate = (SELECT rate FROM plans WHERE name = $2)
		WHERE account_id = $1 AND NOT billed`, accountID, plan); err != nil {
		return fmt.Errorf("re-rate usage: %w", err)
	}
	return tx.Commit(ctx)
}
