package fixed // want package:"sql=true edges=15"

import (
	"context"
	"database/sql"
)

// Subscriptions is dbsql.Subscriptions with ChangeTier fixed.
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
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = true WHERE account_id = $1", accountID); err != nil {
		return err
	}
	return tx.Commit()
}

// ChangeTier now locks the subscription first, like Invoice.
func (s *Subscriptions) ChangeTier(ctx context.Context, accountID int64, plan string) error { // want ChangeTier:`locks\(.*row:subscriptions FOR UPDATE@L0.*row:usage_records FOR NO KEY UPDATE@L0.*row:subscriptions FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var current string
	if err := tx.QueryRowContext(ctx, "SELECT plan FROM subscriptions WHERE account_id = $1 FOR UPDATE", accountID).Scan(&current); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = false WHERE account_id = $1", accountID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE subscriptions SET plan = $2 WHERE account_id = $1", accountID, plan); err != nil {
		return err
	}
	return tx.Commit()
}
