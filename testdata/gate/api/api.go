// Package api changes a tier: it locks the usage records before the
// subscription, against the store's order.
package api

import (
	"context"

	"example.com/gate/store"
)

// ChangeTier locks the usage records first, then the subscription.
func ChangeTier(ctx context.Context, s *store.Store, account int64, plan string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = false WHERE account_id = $1", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE subscriptions SET plan = $2 WHERE account_id = $1", account, plan); err != nil {
		return err
	}
	return tx.Commit()
}
