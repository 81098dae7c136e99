package app // want package:"sql=true edges=12"

import (
	"context"

	"libs/userrules/dbwrap"
)

// Claim locks the job, then the account, in the wrapper's transaction.
func Claim(ctx context.Context, c *dbwrap.Conn, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR UPDATE@L0`
	return c.Atomically(ctx, func(tx *dbwrap.Conn) error {
		if err := tx.Run(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return tx.Run(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	})
}

// Refund locks the account, then the job: the opposite order.
func Refund(ctx context.Context, c *dbwrap.Conn, id int64) error { // want Refund:`locks\(.*row:accounts FOR UPDATE@L0.*row:jobs FOR UPDATE@L0`
	return c.Atomically(ctx, func(tx *dbwrap.Conn) error {
		if err := dbwrap.Exec(ctx, tx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return tx.Run(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id) // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
	})
}
