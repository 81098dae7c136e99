// Package api is the plan endpoint, fixed: subscriptions first.
package api

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Plans changes plans.
type Plans struct{ Pool *pgxpool.Pool }

// ChangePlan moves the subscription, then closes the usage.
func (p *Plans) ChangePlan(ctx context.Context, accountID int64, plan string) error {
	return pgx.BeginFunc(ctx, p.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE subscriptions SET plan = $2 WHERE account_id = $1", accountID, plan); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE usage_records SET closed = true WHERE account_id = $1", accountID)
		return err
	})
}
