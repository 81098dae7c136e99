package store // want package:"sql=true edges=[0-9]+"

// A store whose functions lock two tables in an order, on the transaction
// their callers lend them. Whether two of them can deadlock depends on what
// those callers hold first: a service that takes one advisory gate before
// each of them serialises them. The command, which sees the callers in
// package svc, reports only the pair that one caller runs without the gate;
// go vet, which sees this package first, reports both here.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

func lock(ctx context.Context, tx pgx.Tx, table string, id int64) error {
	_, err := tx.Exec(ctx, "UPDATE "+table+" SET n = n + 1 WHERE id = $1", id)
	return err
}

// CreditDebit locks lp_credits, then lp_debits.
func CreditDebit(ctx context.Context, tx pgx.Tx, id int64) error { // want CreditDebit:`^locks\(`
	if err := lock(ctx, tx, "lp_credits", id); err != nil {
		return err
	}
	return lock(ctx, tx, "lp_debits", id) // want `lock-order inversion: rows of lp_credits and rows of lp_debits are locked in opposite orders`
}

// DebitCredit locks lp_debits, then lp_credits.
func DebitCredit(ctx context.Context, tx pgx.Tx, id int64) error { // want DebitCredit:`^locks\(`
	if err := lock(ctx, tx, "lp_debits", id); err != nil {
		return err
	}
	return lock(ctx, tx, "lp_credits", id)
}

// HoldRelease locks lp_holds, then lp_releases.
func HoldRelease(ctx context.Context, tx pgx.Tx, id int64) error { // want HoldRelease:`^locks\(`
	if err := lock(ctx, tx, "lp_holds", id); err != nil {
		return err
	}
	return lock(ctx, tx, "lp_releases", id) // want `lock-order inversion: rows of lp_holds and rows of lp_releases are locked in opposite orders`
}

// ReleaseHold locks lp_releases, then lp_holds.
func ReleaseHold(ctx context.Context, tx pgx.Tx, id int64) error { // want ReleaseHold:`^locks\(`
	if err := lock(ctx, tx, "lp_releases", id); err != nil {
		return err
	}
	return lock(ctx, tx, "lp_holds", id)
}

// SettlePayout locks lp_settles, then lp_payouts.
func SettlePayout(ctx context.Context, tx pgx.Tx, id int64) error { // want SettlePayout:`^locks\(`
	if err := lock(ctx, tx, "lp_settles", id); err != nil {
		return err
	}
	return lock(ctx, tx, "lp_payouts", id)
}

// PayoutSettle locks lp_payouts, then lp_settles.
func PayoutSettle(ctx context.Context, tx pgx.Tx, id int64) error { // want PayoutSettle:`^locks\(`
	if err := lock(ctx, tx, "lp_payouts", id); err != nil {
		return err
	}
	return lock(ctx, tx, "lp_settles", id) // want `lock-order inversion: rows of lp_payouts and rows of lp_settles are locked in opposite orders`
}
