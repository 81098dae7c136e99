// Package store locks a subscription before its usage records, on every
// path: the order the rest of the program keeps.
package store

import (
	"context"
	"database/sql"
)

// Store is the billing store.
type Store struct {
	DB *sql.DB
}

// Invoice locks the subscription, then the usage records.
func (s *Store) Invoice(ctx context.Context, account int64) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = true WHERE account_id = $1", account); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund locks the subscription, then the usage records, as Invoice does.
func (s *Store) Refund(ctx context.Context, account int64) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM usage_records WHERE account_id = $1", account); err != nil {
		return err
	}
	return tx.Commit()
}
