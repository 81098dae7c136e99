package rangefunc // want package:"sql=true edges=34"

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// postAll and reverseAll lock a ledger and an account in opposite orders,
// each inside a range-over-func loop, but both behind the same exclusive
// advisory lock, taken before the loop: they never interleave.
func postAll(ctx context.Context, tx pgx.Tx, ledger int64, accounts []int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(42)"); err != nil {
		return err
	}
	for _, id := range slices.All(accounts) {
		if _, err := tx.Exec(ctx, "UPDATE ledgers SET total = total + 1 WHERE id = $1", ledger); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", id); err != nil {
			return err
		}
	}
	return nil
}

func reverseAll(ctx context.Context, tx pgx.Tx, ledger int64, accounts []int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(42)"); err != nil {
		return err
	}
	for _, id := range slices.All(accounts) {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE ledgers SET total = total - 1 WHERE id = $1", ledger); err != nil {
			return err
		}
	}
	return nil
}

// postUngated and reverseUngated are the same loops without the gate: they
// deadlock on a ledger and an account.
func postUngated(ctx context.Context, tx pgx.Tx, ledger int64, accounts []int64) error {
	for _, id := range slices.All(accounts) {
		if _, err := tx.Exec(ctx, "UPDATE ledgers SET total = total + 1 WHERE id = $1", ledger); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice accounts in the order the caller passes it` `lock-order inversion: rows of accounts and rows of ledgers are locked in opposite orders(.|\n)*without first taking advisory lock \(42\)`
			return err
		}
	}
	return nil
}

func reverseUngated(ctx context.Context, tx pgx.Tx, ledger int64, accounts []int64) error {
	for _, id := range slices.All(accounts) {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice accounts in the order the caller passes it`
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE ledgers SET total = total - 1 WHERE id = $1", ledger); err != nil {
			return err
		}
	}
	return nil
}
