package heldrows

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// debitCredit moves money between the two wallets of a transfer. Its
// caller passes the transaction by hand, both rows locked in key order.
func debitCredit(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if _, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance + $2 WHERE id = $1", to, amount)
	return err
}

// Pay locks both wallets in key order, then moves the money.
func Pay(ctx context.Context, conn *pgx.Conn, from, to, amount int64) error { // want Pay:`^locks\(table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0, table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0, table:wallets ROW EXCLUSIVE@L0, row:wallets FOR NO KEY UPDATE@L0, table:wallets ROW EXCLUSIVE@L0, row:wallets FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	lo, hi := min(from, to), max(from, to)
	if _, err := tx.Exec(ctx, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", lo); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", hi); err != nil {
		return err
	}
	if err := debitCredit(ctx, tx, from, to, amount); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// refund moves money back. Its caller locks the wallets on another
// connection's transaction: its own rows are free.
func refund(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if _, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance + $2 WHERE id = $1", to, amount) // want `row order chosen by the caller: heldrows.refund locks two rows of wallets, first the one keyed by from, then the one keyed by to`
	return err
}

// Refund locks both wallets in one transaction, and refunds in another.
func Refund(ctx context.Context, audit, conn *pgx.Conn, from, to, amount int64) error { // want Refund:`^locks\(table:wallets ROW SHARE@L1, row:wallets FOR UPDATE@L1, table:wallets ROW SHARE@L1, row:wallets FOR UPDATE@L1, table:wallets ROW EXCLUSIVE@L0, row:wallets FOR NO KEY UPDATE@L0, table:wallets ROW EXCLUSIVE@L0, row:wallets FOR NO KEY UPDATE@L0\)$`
	lockTx, err := audit.Begin(ctx)
	if err != nil {
		return err
	}
	defer lockTx.Rollback(ctx)
	if _, err := lockTx.Exec(ctx, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", min(from, to)); err != nil {
		return err
	}
	if _, err := lockTx.Exec(ctx, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", max(from, to)); err != nil {
		return err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := refund(ctx, tx, from, to, amount); err != nil { // want `application self-deadlock: heldrows.Refund holds rows of wallets \(FOR UPDATE\) and then waits for rows of wallets \(FOR NO KEY UPDATE\) on another connection`
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	return lockTx.Commit(ctx)
}

// settle moves money between two wallets its callers locked first.
func settle(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if _, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance + $2 WHERE id = $1", to, amount)
	return err
}

// PayBoth locks both wallets in one statement, in key order, as a list of
// the two: the rows settle asks for are held already.
func PayBoth(ctx context.Context, conn *pgx.Conn, from, to, amount int64) error { // want PayBoth:`^locks\(table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT id FROM wallets WHERE id = ANY($1) ORDER BY id FOR UPDATE", []int64{from, to}); err != nil {
			return err
		}
		return settle(ctx, tx, from, to, amount)
	})
}

// settleListed is settle for a caller that locks a list it was given.
func settleListed(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if _, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance + $2 WHERE id = $1", to, amount) // want `row order chosen by the caller: heldrows.settleListed locks two rows of wallets`
	return err
}

// PayListed locks the wallets of a list its caller gives, which need not
// hold from and to: settleListed's rows may be free.
func PayListed(ctx context.Context, conn *pgx.Conn, ids []int64, from, to, amount int64) error { // want PayListed:`^locks\(table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT id FROM wallets WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids); err != nil {
			return err
		}
		return settleListed(ctx, tx, from, to, amount)
	})
}
