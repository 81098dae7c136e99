package sametx // want package:"sql=true edges=26"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// lockAccount locks an account in the caller's transaction.
func lockAccount(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT 1 FROM st_accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// Withdraw begins its transaction on a dedicated connection, locks through a
// helper, then updates directly: one transaction, one connection. Silent.
func Withdraw(ctx context.Context, conn *pgx.Conn, id int64) error { // want Withdraw:`^locks\(table:st_accounts ROW SHARE@L0, row:st_accounts FOR UPDATE@L0, table:st_accounts ROW EXCLUSIVE@L0, row:st_accounts FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := lockAccount(ctx, tx, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE st_accounts SET balance = balance - 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Repo holds the transaction by value.
type Repo struct{ tx pgx.Tx }

// Lock runs a statement on the repository's transaction (value receiver).
func (r Repo) Lock(ctx context.Context, query string) error { // want Lock:`^sinks\(2@p0.tx\)$`
	_, err := r.tx.Exec(ctx, query)
	return err
}

// Settle copies the repository and keeps a transaction in a slice: still one
// transaction. It locks ledger rows, then journal rows.
func Settle(ctx context.Context, conn *pgx.Conn) error { // want Settle:`^locks\(table:st_ledger ROW EXCLUSIVE@L0, row:st_ledger FOR NO KEY UPDATE@L0, table:st_journal ROW EXCLUSIVE@L0, row:st_journal FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	r := Repo{tx: tx}
	if err := r.Lock(ctx, "UPDATE st_ledger SET settled = true WHERE id = 1"); err != nil {
		return err
	}
	all := []pgx.Tx{tx}
	if _, err := all[0].Exec(ctx, "UPDATE st_journal SET settled = true WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// execOn runs two statements on whatever handle it gets, after a type
// switch.
func execOn(ctx context.Context, q any, first, second string) {
	switch db := q.(type) {
	case pgx.Tx:
		_, _ = db.Exec(ctx, first)
		_, _ = db.Exec(ctx, second)
	case interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}:
		_, _ = db.Exec(ctx, first)
	}
}

// lockJournal locks through a pointer to the transaction.
func lockJournal(ctx context.Context, tx *pgx.Tx) error {
	_, err := (*tx).Exec(ctx, "UPDATE st_journal SET checked = true WHERE id = 1")
	return err
}

// Audit locks journal rows (through a pointer), then ledger rows (through
// the type-switching helper): the opposite order of Settle.
func Audit(ctx context.Context, conn *pgx.Conn) error { // want Audit:`^locks\(table:st_journal ROW EXCLUSIVE@L0, row:st_journal FOR NO KEY UPDATE@L0(, table:st_ledger ROW EXCLUSIVE@L0, row:st_ledger FOR NO KEY UPDATE@L0)+\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := lockJournal(ctx, &tx); err != nil {
		return err
	}
	execOn(ctx, tx, "UPDATE st_ledger SET audited = true WHERE id = 1", "SELECT 1") // want `lock-order inversion: rows of st_journal and rows of st_ledger are locked in opposite orders; concurrent transactions`
	return tx.Commit(ctx)
}

// runBoth runs its two statements, in the order given, on the caller's
// transaction.
func runBoth(ctx context.Context, tx pgx.Tx, first, second string) error {
	if _, err := tx.Exec(ctx, first); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, second)
	return err
}

// Bill and Refund pass the statements of runBoth in opposite orders: two
// pieces of caller SQL at one call site are two statements, in order.
func Bill(ctx context.Context, conn *pgx.Conn) error { // want Bill:`row:st_invoices FOR NO KEY UPDATE@L0, .*row:st_credits FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := runBoth(ctx, tx, "UPDATE st_invoices SET billed = true WHERE id = 1", "UPDATE st_credits SET used = true WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Refund is Bill's opposite order.
func Refund(ctx context.Context, conn *pgx.Conn) error { // want Refund:`row:st_credits FOR NO KEY UPDATE@L0, .*row:st_invoices FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := runBoth(ctx, tx, "UPDATE st_credits SET used = false WHERE id = 1", "UPDATE st_invoices SET billed = false WHERE id = 1"); err != nil { // want `lock-order inversion: rows of st_credits and rows of st_invoices are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}
