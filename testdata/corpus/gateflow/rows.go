package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The row-order rules are silent in a helper whose every caller holds a
// guard (an exclusive advisory lock) when it calls it: two executions of
// the helper run one after the other.

const walletGate = 933

// moveFunds locks two wallets in the order its caller passes them.
func moveFunds(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_wallets SET n = n - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_wallets SET n = n + 1 WHERE id = $1", to)
	return err
}

// settle locks the wallets of a map, in map order.
func settle(ctx context.Context, tx pgx.Tx, deltas map[int64]int64) error {
	for id, d := range deltas {
		if _, err := tx.Exec(ctx, "UPDATE gf_wallets SET n = n + $2 WHERE id = $1", id, d); err != nil {
			return err
		}
	}
	return nil
}

// freeze locks a caller's set of wallets in no defined order.
func freeze(ctx context.Context, tx pgx.Tx, ids []int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM gf_wallets WHERE id = ANY($1) FOR UPDATE", ids)
	return err
}

// Pay and Payout call the helpers behind the wallet gate only.
func Pay(ctx context.Context, tx pgx.Tx, from, to int64, ids []int64) error { // want Pay:`^locks\(advisory:\(933\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", walletGate); err != nil {
		return err
	}
	if err := freeze(ctx, tx, ids); err != nil {
		return err
	}
	return moveFunds(ctx, tx, from, to)
}

func Payout(ctx context.Context, tx pgx.Tx, deltas map[int64]int64) error { // want Payout:`^locks\(advisory:\(933\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", walletGate); err != nil {
		return err
	}
	return settle(ctx, tx, deltas)
}

// The same helpers, with one caller that holds no guard: reported.

func moveCoins(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_purses SET n = n - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_purses SET n = n + 1 WHERE id = $1", to) // want `row order chosen by the caller: gateflow.moveCoins locks two rows of gf_purses`
	return err
}

func settleCoins(ctx context.Context, tx pgx.Tx, deltas map[int64]int64) error {
	for id, d := range deltas {
		if _, err := tx.Exec(ctx, "UPDATE gf_purses SET n = n + $2 WHERE id = $1", id, d); err != nil { // want `lock order set by a loop: rows of gf_purses`
			return err
		}
	}
	return nil
}

func freezeCoins(ctx context.Context, tx pgx.Tx, ids []int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM gf_purses WHERE id = ANY($1) FOR UPDATE", ids)
	return err
}

// Spend calls them behind the gate; Tip calls them without it.
func Spend(ctx context.Context, tx pgx.Tx, from, to int64, ids []int64, deltas map[int64]int64) error { // want Spend:`^locks\(advisory:\(933\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", walletGate); err != nil {
		return err
	}
	if err := freezeCoins(ctx, tx, ids); err != nil {
		return err
	}
	if err := settleCoins(ctx, tx, deltas); err != nil {
		return err
	}
	return moveCoins(ctx, tx, from, to)
}

func Tip(ctx context.Context, tx pgx.Tx, from, to int64, ids []int64, deltas map[int64]int64) error { // want Tip:`^locks\(table:gf_purses ROW SHARE@p1, `
	// freezeCoins' statement is judged with the locks of the transaction
	// it is lent: reported at the call without the gate.
	if err := freezeCoins(ctx, tx, ids); err != nil { // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of gf_purses`
		return err
	}
	if err := settleCoins(ctx, tx, deltas); err != nil {
		return err
	}
	return moveCoins(ctx, tx, from, to)
}
