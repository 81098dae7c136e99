package fixed // want package:"sql=true edges=16"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/helpers/store"
)

// Billing is helpers/service with ChangePlan fixed.
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
	if err := store.LockUsage(ctx, tx, accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// ChangePlan takes the subscription first as well.
func (b *Billing) ChangePlan(ctx context.Context, accountID int64, plan string) error { // want ChangePlan:`locks\(.*row:subscriptions FOR UPDATE@L0.*row:usage_records FOR UPDATE@L0.*row:subscriptions FOR NO KEY UPDATE@L0`
	tx, err := b.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := store.LockSubscription(ctx, tx, accountID); err != nil {
		return err
	}
	if err := store.LockUsage(ctx, tx, accountID); err != nil {
		return err
	}
	if err := store.SetPlan(ctx, tx, accountID, plan); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
