// Package accounts moves money between an account and its ledger.
package accounts

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ID names an account.
type ID int64

// Credit locks the account, then the ledger.
func Credit(ctx context.Context, tx pgx.Tx, id ID, amount int64) error {
	if _, err := tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE ledgers SET total = total + $2 WHERE account_id = $1", id, amount) // want `lock-order inversion: rows of accounts and rows of ledgers are locked in opposite orders`
	return err
}
