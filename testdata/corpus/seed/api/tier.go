package api // want package:"sql=true edges=16"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/seed/billing"
)

// UpdateSubscriptionTier locks usage records first, then the subscription:
// the opposite order of billing.InvoiceAccount.
func UpdateSubscriptionTier(ctx context.Context, pool *pgxpool.Pool, accountID int64, plan string) error { // want UpdateSubscriptionTier:`locks\(.*row:usage_records FOR NO KEY UPDATE@L0, .*row:subscriptions FOR NO KEY UPDATE@L0\)`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE usage_records SET billed = false WHERE account_id = $1", accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE subscriptions SET plan = $2, price = $3 WHERE account_id = $1", accountID, plan, billing.PlanPrice(plan)); err != nil { // want `lock-order inversion: rows of subscriptions and rows of usage_records`
		return err
	}
	return tx.Commit(ctx)
}
