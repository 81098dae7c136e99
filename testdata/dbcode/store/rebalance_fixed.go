//go:build fixed

package store

import (
	"context"
	"database/sql"
)

// Rebalance, fixed: the account first, as AddPayment's trigger takes it.
func Rebalance(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = 0 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE ledgers SET total = 0 WHERE id = $1", id)
	return err
}
