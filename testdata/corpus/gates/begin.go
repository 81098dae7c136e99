package gates // want package:"sql=true edges=166"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ledger begins its write transactions in a helper that takes the write
// gate before it returns the transaction: the gate flows to the callers.
type Ledger struct{ pool *pgxpool.Pool }

const writeGate = 910

// beginWrite begins a transaction and takes the write gate first; on error
// it returns no transaction.
func (l *Ledger) beginWrite(ctx context.Context) (pgx.Tx, error) { // want beginWrite:`^locks\(advisory:\(910\) exclusive@L0\) holds\[0\] returns`
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", writeGate); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return tx, nil
}

// beginMaybe takes the gate only when asked: on the other path the
// transaction comes back without it.
func (l *Ledger) beginMaybe(ctx context.Context, gated bool) (pgx.Tx, error) { // want beginMaybe:`^locks\(advisory:\(910\) exclusive@L0\) holds\[0\] returns`
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if gated {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", writeGate); err != nil {
			_ = tx.Rollback(ctx)
			return nil, err
		}
	}
	return tx, nil
}

// Post and Reverse invert the journal and the balances, each behind the
// gate beginWrite takes: serialised, silent.
func (l *Ledger) Post(ctx context.Context) error { // want Post:`^locks\(advisory:\(910\) exclusive@C0/L0, table:g_journal`
	tx, err := l.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE g_journal SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE g_balances SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (l *Ledger) Reverse(ctx context.Context) error { // want Reverse:`^locks\(advisory:\(910\) exclusive@C0/L0, table:g_balances`
	tx, err := l.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE g_balances SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE g_journal SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Audit and Repair invert the same two tables on transactions that may
// lack the gate: reported.
func (l *Ledger) Audit(ctx context.Context, gated bool) error { // want Audit:`^locks\(advisory:\(910\) exclusive@C0/L0, table:g_audit`
	tx, err := l.beginMaybe(ctx, gated)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE g_audit SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE g_repairs SET n = n + 1 WHERE id = 1"); err != nil { // want `(?s)lock-order inversion: rows of g_audit and rows of g_repairs.*without first taking advisory lock \(910\)`
		return err
	}
	return tx.Commit(ctx)
}

func (l *Ledger) Repair(ctx context.Context) error { // want Repair:`^locks\(advisory:\(910\) exclusive@C0/L0, table:g_repairs`
	tx, err := l.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE g_repairs SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE g_audit SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
