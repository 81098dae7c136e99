// want package:"sql=true edges=0"

// Package mysql is the MySQL implementation of the store. It imports the
// MySQL driver: its statements are MySQL's, whose locks pglockorder does not
// model, so its inversion is not reported.
package mysql

import (
	"context"
	"database/sql"

	_ "github.com/go-sql-driver/mysql" // the driver this store runs on
)

// Store is the MySQL store.
type Store struct{ db *sql.DB }

// Credit locks the account, then the ledger.
func (s *Store) Credit(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = ?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE ledgers SET total = total + 1 WHERE id = ?", id); err != nil {
		return err
	}
	return tx.Commit()
}

// Debit locks the ledger, then the account.
func (s *Store) Debit(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT total FROM ledgers WHERE id = ? FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = ?", id); err != nil {
		return err
	}
	return tx.Commit()
}
