package testcode // want package:"sql=true edges=(18|36)"

// Paths in test code are not set against production paths (tests never run
// beside the service), but tests are still checked among themselves, and
// production among itself.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Settle locks the ledger, then the journal.
func Settle(ctx context.Context, conn *pgx.Conn, id int64) error { // want Settle:`^locks\(table:tc_ledger ROW EXCLUSIVE@L0, row:tc_ledger FOR NO KEY UPDATE@L0, table:tc_journal ROW EXCLUSIVE@L0, row:tc_journal FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tc_ledger SET total = total + 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE tc_journal SET n = n + 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Invoice locks the subscription, then the usage.
func Invoice(ctx context.Context, conn *pgx.Conn, id int64) error { // want Invoice:`^locks\(table:tc_subs ROW EXCLUSIVE@L0, row:tc_subs FOR NO KEY UPDATE@L0, table:tc_usage ROW EXCLUSIVE@L0, row:tc_usage FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tc_subs SET n = n + 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE tc_usage SET n = n + 1 WHERE id = $1", id); err != nil { // want `lock-order inversion: rows of tc_subs and rows of tc_usage`
		return err
	}
	return tx.Commit(ctx)
}

// Refund inverts Invoice's order: a production path against a production
// path is reported.
func Refund(ctx context.Context, conn *pgx.Conn, id int64) error { // want Refund:`^locks\(table:tc_usage ROW EXCLUSIVE@L0, row:tc_usage FOR NO KEY UPDATE@L0, table:tc_subs ROW EXCLUSIVE@L0, row:tc_subs FOR NO KEY UPDATE@L0\)$`
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tc_usage SET n = n - 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE tc_subs SET n = n - 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
