package advisory

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Jobs serialises work with advisory locks.
type Jobs struct {
	pool *pgxpool.Pool
}

// Compact takes advisory lock 1, then 2.
func (j *Jobs) Compact(ctx context.Context) error { // want Compact:`locks\(.*advisory:\(1`
	tx, err := j.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(2)"); err != nil { // want `lock-order inversion: advisory lock \(1\) and advisory lock \(2\) are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Vacuum takes them the other way round.
func (j *Jobs) Vacuum(ctx context.Context) error { // want Vacuum:`locks\(.*advisory:\(2`
	tx, err := j.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(2)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1)"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Keys of the invoice and payment locks.
const (
	lockInvoices = 42
	lockPayments = 43
)

// IssueInvoices takes the invoice lock, then the payment lock, with the keys
// bound as query parameters.
func (j *Jobs) IssueInvoices(ctx context.Context) error { // want IssueInvoices:`locks\(.*advisory:\(42`
	return pgx.BeginFunc(ctx, j.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockInvoices); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockPayments) // want `lock-order inversion: advisory lock \(42\) and advisory lock \(43\) are locked in opposite orders`
		return err
	})
}

// CollectPayments takes the payment lock, then the invoice lock.
func (j *Jobs) CollectPayments(ctx context.Context) error { // want CollectPayments:`locks\(.*advisory:\(43`
	return pgx.BeginFunc(ctx, j.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockPayments); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockInvoices)
		return err
	})
}

// LockTenants locks two tenants by run-time keys. Nothing is known about
// the keys, so the analysis does not guess a cycle with SwapTenants; each
// alone, called twice with the keys swapped, deadlocks (caller-row-order).
func (j *Jobs) LockTenants(ctx context.Context, first, second int64) error { // want LockTenants:`locks\(advisory:\(\?p2\)\|@.* exclusive@L0, advisory:\(\?p3\)\|@.* exclusive@L0\)`
	tx, err := j.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", first); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", second); err != nil { // want `row order chosen by the caller: advisory.Jobs.LockTenants takes two advisory locks, first the one keyed by first, then the one keyed by second`
		return err
	}
	return tx.Commit(ctx)
}

// SwapTenants does the same at other sites.
func (j *Jobs) SwapTenants(ctx context.Context, a, b int64) error { // want SwapTenants:`locks\(advisory:\(\?p3\)\|@.* exclusive@L0, advisory:\(\?p2\)\|@.* exclusive@L0\)`
	tx, err := j.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", b); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", a); err != nil { // want `row order chosen by the caller: advisory.Jobs.SwapTenants takes two advisory locks, first the one keyed by b, then the one keyed by a`
		return err
	}
	return tx.Commit(ctx)
}
