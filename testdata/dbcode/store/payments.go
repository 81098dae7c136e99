package store

import (
	"context"
	"database/sql"
)

// AddPayment inserts a payment, whose trigger locks the account's row, then
// adds it to the ledger.
func AddPayment(ctx context.Context, tx *sql.Tx, accountID int64) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO payments (account_id, amount) VALUES ($1, 10)", accountID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE ledgers SET total = total + 10 WHERE id = $1", accountID)
	return err
}

// AnnotatePayment updates a payment's note, which fires no trigger (it
// runs on UPDATE OF amount), then the ledger: no cycle with Rebalance.
func AnnotatePayment(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE payments SET note = 'checked' WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE ledgers SET total = total WHERE id = $1", id)
	return err
}
