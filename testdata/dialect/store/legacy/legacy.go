// want package:"sql=true edges=12"

// Package legacy uses database/sql without choosing a driver: the binary
// that uses it (cmd/legacytool) registers MySQL's. Only the whole program
// shows it; go vet, one package at a time, analyses it as PostgreSQL.
package legacy

import (
	"context"
	"database/sql"
)

// Credit locks the account, then the ledger.
func Credit(ctx context.Context, db *sql.DB, id int64) error { // want Credit:`^locks\(table:legacy_accounts ROW EXCLUSIVE@L0, row:legacy_accounts FOR NO KEY UPDATE@L0, table:legacy_ledgers ROW EXCLUSIVE@L0, row:legacy_ledgers FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE legacy_accounts SET balance = balance + 1 WHERE id = ?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE legacy_ledgers SET total = total + 1 WHERE id = ?", id); err != nil { // want `lock-order inversion: rows of legacy_accounts and rows of legacy_ledgers are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Debit locks the ledger, then the account.
func Debit(ctx context.Context, db *sql.DB, id int64) error { // want Debit:`^locks\(table:legacy_ledgers ROW EXCLUSIVE@L0, row:legacy_ledgers FOR NO KEY UPDATE@L0, table:legacy_accounts ROW EXCLUSIVE@L0, row:legacy_accounts FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE legacy_ledgers SET total = total - 1 WHERE id = ?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE legacy_accounts SET balance = balance - 1 WHERE id = ?", id); err != nil {
		return err
	}
	return tx.Commit()
}
