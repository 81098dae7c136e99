package store // want package:"sql=true edges=3"

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// LockUsage locks the account's usage records in the caller's transaction.
func LockUsage(ctx context.Context, tx pgx.Tx, accountID int64) error { // want LockUsage:`locks\(.*row:usage_records FOR UPDATE@p1`
	_, err := tx.Exec(ctx, "SELECT id FROM usage_records WHERE account_id = $1 FOR UPDATE", accountID)
	return err
}

// LockSubscription locks the account's subscription in the caller's
// transaction and returns its plan.
func LockSubscription(ctx context.Context, tx pgx.Tx, accountID int64) (string, error) { // want LockSubscription:`locks\(.*row:subscriptions FOR UPDATE@p1`
	var plan string
	err := tx.QueryRow(ctx, "SELECT plan FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID).Scan(&plan)
	return plan, err
}

// SetPlan changes the plan of a locked subscription.
func SetPlan(ctx context.Context, tx pgx.Tx, accountID int64, plan string) error { // want SetPlan:`locks\(.*row:subscriptions FOR NO KEY UPDATE@p1`
	_, err := tx.Exec(ctx, "UPDATE subscriptions SET plan = $2 WHERE account_id = $1", accountID, plan)
	return err
}
