package service // want package:"sql=true edges=13"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/helpers/store"
)

// Billing runs billing operations through the store helpers.
type Billing struct {
	Pool *pgxpool.Pool
}

// Invoice locks the subscription, then the usage records.
func (b *Billing) Invoice(ctx context.Context, accountID int64) error { // want Invoice:`locks\(.*row:subscriptions FOR UPDATE@L0.*row:usage_records FOR UPDATE@L0`
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := store.LockSubscription(ctx, tx, accountID); err != nil {
		return err
	}
	if err := store.LockUsage(ctx, tx, accountID); err != nil { // want `(?s)lock-order inversion: rows of subscriptions and rows of usage_records are locked in opposite orders.*calls store\.LockUsage\n\s+\S*store\.go:11:\d+: SELECT \.\.\. FOR UPDATE in a transaction \(in store\.LockUsage\).*service\.go:43:\d+: calls store\.SetPlan`
		return err
	}
	return tx.Commit(ctx)
}

// ChangePlan locks the usage records first, then the subscription: the
// opposite order, hidden behind the helpers.
func (b *Billing) ChangePlan(ctx context.Context, accountID int64, plan string) error { // want ChangePlan:`locks\(.*row:usage_records FOR UPDATE@L0.*row:subscriptions FOR NO KEY UPDATE@L0`
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := store.LockUsage(ctx, tx, accountID); err != nil {
		return err
	}
	if err := store.SetPlan(ctx, tx, accountID, plan); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
