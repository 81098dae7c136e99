package dbsql // want package:"sql=true edges=12"

import (
	"context"
	"database/sql"
)

// Subscriptions is the billing store on database/sql.
type Subscriptions struct {
	db *sql.DB
}

// Invoice locks the subscription, then the usage records.
func (s *Subscriptions) Invoice(ctx context.Context, accountID int64) error { // want Invoice:`locks\(.*row:subscriptions FOR UPDATE@L0.*row:usage_records FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var plan string
	if err := tx.QueryRowContext(ctx, "SELECT plan FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID).Scan(&plan); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = true WHERE account_id = $1", accountID); err != nil { // want `lock-order inversion: rows of subscriptions and rows of usage_records are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// ChangeTier locks the usage records first, then the subscription.
func (s *Subscriptions) ChangeTier(ctx context.Context, accountID int64, plan string) error { // want ChangeTier:`locks\(.*row:usage_records FOR NO KEY UPDATE@L0.*row:subscriptions FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = false WHERE account_id = $1", accountID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE subscriptions SET plan = $2 WHERE account_id = $1", accountID, plan); err != nil {
		return err
	}
	return tx.Commit()
}
