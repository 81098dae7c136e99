package sqlscan // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"database/sql"

	"github.com/georgysavva/scany/v2/sqlscan"
)

// Wallet is a row of wallets.
type Wallet struct {
	ID      int64
	Balance int64
}

// Transfer locks both wallets in key order with sqlscan.Get, then moves
// the money in the caller's order: the rows are already locked, silent.
func Transfer(ctx context.Context, db *sql.DB, from, to, amount int64) error { // want Transfer:`locks\(.*row:wallets FOR UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var w Wallet
	for _, id := range []int64{min(from, to), max(from, to)} {
		if err := sqlscan.Get(ctx, tx, &w, "SELECT id, balance FROM wallets WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE wallets SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE wallets SET balance = balance + $2 WHERE id = $1", to, amount); err != nil {
		return err
	}
	return tx.Commit()
}
