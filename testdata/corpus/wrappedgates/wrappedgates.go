package wrappedgates // want package:"sql=true edges=[0-9]+"

// A gate taken in a helper counts where the helper reports success: a nil
// error. Go code wraps the error it returns on the branch where the lock
// failed (fmt.Errorf("lock customer %d: %w", id, err), a typed error): that
// error is never nil, so the caller that goes on only after a nil error
// holds the gate. Found by a blind test (a usage meter's customer gate).

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const markInvoiced = `UPDATE wg_buckets SET invoiced = true WHERE customer_id = $1 AND period = ANY($2)`

// LockError is a gate's typed error.
type LockError struct{ Err error }

func (e *LockError) Error() string { return "lock: " + e.Err.Error() }

func lockWrapped(ctx context.Context, tx pgx.Tx, customer int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", customer); err != nil {
		return fmt.Errorf("lock customer %d: %w", customer, err)
	}
	return nil
}

func lockTyped(ctx context.Context, tx pgx.Tx, customer int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", customer); err != nil {
		return &LockError{Err: err}
	}
	return nil
}

func lockNew(ctx context.Context, tx pgx.Tx, customer int64) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", customer)
	if err != nil {
		log.Print(err)
		return errors.New("could not lock the customer")
	}
	return nil
}

// lockSwallowed logs the failure and reports success: its callers go on
// without the gate.
func lockSwallowed(ctx context.Context, tx pgx.Tx, customer int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", customer); err != nil {
		log.Printf("lock customer %d: %v", customer, err)
		return nil
	}
	return nil
}

// Wrapped, Typed and New mark a customer's buckets behind the gate: two
// executions for one customer run one after the other.
func Wrapped(ctx context.Context, pool *pgxpool.Pool, customer int64, periods []int64) error { // want Wrapped:`^locks\(advisory:\(\?p2\)\|@corpus/wrappedgates/wrappedgates.go:[0-9]+:[0-9]+ exclusive@L0, table:wg_buckets ROW EXCLUSIVE@L0, row:wg_buckets FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockWrapped(ctx, tx, customer); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, markInvoiced, customer, periods)
		return err
	})
}

func Typed(ctx context.Context, pool *pgxpool.Pool, customer int64, periods []int64) error { // want Typed:`^locks\(advisory:\(\?p2\)\|@corpus/wrappedgates/wrappedgates.go:[0-9]+:[0-9]+ exclusive@L0, table:wg_buckets ROW EXCLUSIVE@L0, row:wg_buckets FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockTyped(ctx, tx, customer); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, markInvoiced, customer, periods)
		return err
	})
}

func New(ctx context.Context, pool *pgxpool.Pool, customer int64, periods []int64) error { // want New:`^locks\(advisory:\(\?p2\)\|@corpus/wrappedgates/wrappedgates.go:[0-9]+:[0-9]+ exclusive@L0, table:wg_buckets ROW EXCLUSIVE@L0, row:wg_buckets FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockNew(ctx, tx, customer); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, markInvoiced, customer, periods)
		return err
	})
}

// Swallowed goes on after a failed lock: the set of periods is locked in
// the caller's order with no gate.
func Swallowed(ctx context.Context, pool *pgxpool.Pool, customer int64, periods []int64) error { // want Swallowed:`^locks\(advisory:\(\?p2\)\|@corpus/wrappedgates/wrappedgates.go:[0-9]+:[0-9]+ exclusive@L0, table:wg_buckets ROW EXCLUSIVE@L0, row:wg_buckets FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockSwallowed(ctx, tx, customer); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, markInvoiced, customer, periods) // want `unordered multi-row lock: UPDATE takes rows of wg_buckets`
		return err
	})
}
