// Package billing charges an account: it locks the ledger, then the
// account (through accounts.Credit), the other order from accounts'
// own, a deadlock.
package billing

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"program/recompiled/accounts"
	"program/recompiled/guard"
	"program/recompiled/notify"
)

// Charge checks the amount and charges it in one transaction.
func Charge(ctx context.Context, pool *pgxpool.Pool, id accounts.ID, amount int64) error {
	if err := guard.Positive(amount); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM ledgers WHERE account_id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		if err := accounts.Credit(ctx, tx, id, amount); err != nil {
			return err
		}
		return notify.Queue(ctx, tx, int64(id), "charged")
	})
}
