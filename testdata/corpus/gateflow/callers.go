package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A helper that holds a lock-order inversion is gated when every one of
// its callers takes the gate, in the same transaction, before it calls it:
// the helper's pairs then run behind the callers' gate.

// Stock keeps stock levels and their ledger.
type Stock struct{ pool *pgxpool.Pool }

const stockGate = 930

// moveStock locks the stock, then the ledger, on its caller's transaction.
func moveStock(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_stock SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_ledger SET n = n + 1 WHERE id = 1")
	return err
}

// lockStock takes the gate on the caller's transaction.
func lockStock(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", stockGate)
	return err
}

// Receive takes the gate, then calls moveStock.
func (s *Stock) Receive(ctx context.Context) error { // want Receive:`^locks\(advisory:\(930\) exclusive@L0, `
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if err := moveStock(ctx, tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Transfer reaches moveStock through another helper, behind the gate.
func (s *Stock) Transfer(ctx context.Context) error { // want Transfer:`^locks\(advisory:\(930\) exclusive@L0, `
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", stockGate); err != nil {
		return err
	}
	if err := relay(ctx, tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// relay is called only behind the gate, and passes it on to moveStock.
func relay(ctx context.Context, tx pgx.Tx) error {
	return moveStock(ctx, tx)
}

// Reconcile locks the ledger, then the stock, behind the same gate:
// serialised with every call of moveStock, silent.
func (s *Stock) Reconcile(ctx context.Context) error { // want Reconcile:`^locks\(advisory:\(930\) exclusive@L0, `
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_ledger SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_stock SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
