package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// gateOn takes the gate on its caller's handle, then runs rebalance: the
// gate is held only if that handle is a transaction, so it gates nothing
// for rebalance, whose callers' handles gateOn cannot see.
func gateOn(ctx context.Context, db DBTX, pool *pgxpool.Pool) error {
	if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock(942)"); err != nil {
		return err
	}
	return rebalance(ctx, pool)
}

// rebalance locks the left, then the right, in a transaction of its own.
func rebalance(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE gf_left SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_right SET n = n + 1 WHERE id = 1"); err != nil { // want `(?s)lock-order inversion: rows of gf_left and rows of gf_right.*gateflow.rebalance`
		return err
	}
	return tx.Commit(ctx)
}

// Rebalance hands gateOn the pool: the gate is an autocommit statement,
// released as it ends.
func Rebalance(ctx context.Context, pool *pgxpool.Pool) error { // want Rebalance:`^locks\(advisory:\(942\) exclusive@F, `
	return gateOn(ctx, pool, pool)
}

// Unbalance locks the right, then the left, behind the gate.
func Unbalance(ctx context.Context, tx pgx.Tx) error { // want Unbalance:`^locks\(advisory:\(942\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(942)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_right SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_left SET n = n + 1 WHERE id = 1")
	return err
}
