// Package store is a data layer in a module of its own, which the service's
// module replaces with this directory (replace example.com/dbmod =>
// ./localmod/dbmod): the project's code, analysed with it.
package store

import (
	"context"
	"database/sql"
)

// Transfer locks the account, then its ledger.
func Transfer(ctx context.Context, db *sql.DB, account int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SELECT id FROM ledgers WHERE account_id = $1 FOR UPDATE", account); err != nil { // want `^lock-order inversion: rows of accounts and rows of ledgers are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Audit locks the ledger, then its account: the opposite order.
func Audit(ctx context.Context, db *sql.DB, account int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT id FROM ledgers WHERE account_id = $1 FOR UPDATE", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", account); err != nil {
		return err
	}
	return tx.Commit()
}
