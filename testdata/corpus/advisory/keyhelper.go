package advisory // want package:"sql=true edges=63"

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Keys of the billing locks, passed to a lock helper.
const (
	invoicesKey = 501
	paymentsKey = 502
)

// xactLock takes a transaction advisory lock on the key its caller passes.
func xactLock(ctx context.Context, tx pgx.Tx, key int64) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", key); err != nil {
		return fmt.Errorf("advisory lock %d: %w", key, err)
	}
	return nil
}

// CloseMonth takes the invoices key, then the payments key.
func CloseMonth(ctx context.Context, tx pgx.Tx) error { // want CloseMonth:`^locks\(advisory:\(501\) exclusive@p1, advisory:\(502\) exclusive@p1\) holds\[0 1\]$`
	if err := xactLock(ctx, tx, invoicesKey); err != nil {
		return err
	}
	return xactLock(ctx, tx, paymentsKey)
}

// Refund takes the payments key, then the invoices key: the opposite order.
func Refund(ctx context.Context, tx pgx.Tx) error { // want Refund:`^locks\(advisory:\(502\) exclusive@p1, advisory:\(501\) exclusive@p1\) holds\[0 1\]$`
	if err := xactLock(ctx, tx, paymentsKey); err != nil {
		return err
	}
	return xactLock(ctx, tx, invoicesKey) // want `lock-order inversion: advisory lock \(501\) and advisory lock \(502\) are locked in opposite orders`
}

// Reconcile takes them in CloseMonth's order: no new cycle.
func Reconcile(ctx context.Context, tx pgx.Tx) error { // want Reconcile:`^locks\(advisory:\(501\) exclusive@p1, advisory:\(502\) exclusive@p1\) holds\[0 1\]$`
	if err := xactLock(ctx, tx, invoicesKey); err != nil {
		return err
	}
	return xactLock(ctx, tx, paymentsKey)
}

// LockPair takes two keys known only at run time, in the order given: the
// analysis does not guess a cycle from two calls passing the same keys, but
// two calls with the keys swapped deadlock (caller-row-order).
func LockPair(ctx context.Context, tx pgx.Tx, a, b int64) error { // want LockPair:`^locks\(advisory:\(\?p2\)\|@.* exclusive@p1, advisory:\(\?p3\)\|@.* exclusive@p1\)`
	if err := xactLock(ctx, tx, a); err != nil {
		return err
	}
	return xactLock(ctx, tx, b) // want `row order chosen by the caller: advisory.LockPair takes two advisory locks, first the one keyed by a, then the one keyed by b`
}

// sessionLock takes a session lock on a dedicated connection.
func sessionLock(ctx context.Context, conn *pgxpool.Conn, key int64) error {
	_, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key)
	return err
}

// sessionUnlock releases it.
func sessionUnlock(ctx context.Context, conn *pgxpool.Conn, key int64) {
	_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key)
}

// Exporter and Importer take two session locks through the helpers in
// opposite orders.
func Exporter(ctx context.Context, conn *pgxpool.Conn) error { // want Exporter:`^locks\(advisory:\(601\) exclusive@p1, advisory:\(602\) exclusive@p1\)$`
	if err := sessionLock(ctx, conn, 601); err != nil {
		return err
	}
	defer sessionUnlock(ctx, conn, 601)
	if err := sessionLock(ctx, conn, 602); err != nil { // want `lock-order inversion through a session-level advisory lock: advisory lock \(601\) and advisory lock \(602\)`
		return err
	}
	defer sessionUnlock(ctx, conn, 602)
	return nil
}

// Importer is Exporter's opposite.
func Importer(ctx context.Context, conn *pgxpool.Conn) error { // want Importer:`^locks\(advisory:\(602\) exclusive@p1, advisory:\(601\) exclusive@p1\)$`
	if err := sessionLock(ctx, conn, 602); err != nil {
		return err
	}
	defer sessionUnlock(ctx, conn, 602)
	if err := sessionLock(ctx, conn, 601); err != nil {
		return err
	}
	defer sessionUnlock(ctx, conn, 601)
	return nil
}

// Sequential releases the first key before taking the second: silent. Its
// early returns follow a lock that failed, which holds nothing: the fact
// says no lock is held when it returns.
func Sequential(ctx context.Context, conn *pgxpool.Conn) error { // want Sequential:`^locks\(advisory:\(602\) exclusive@p1, advisory:\(601\) exclusive@p1\)$`
	if err := sessionLock(ctx, conn, 602); err != nil {
		return err
	}
	sessionUnlock(ctx, conn, 602)
	if err := sessionLock(ctx, conn, 601); err != nil {
		return err
	}
	sessionUnlock(ctx, conn, 601)
	return nil
}
