package trylock

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Queries is the shape sqlc generates: TryLock reports whether it got the
// key.
type Queries struct {
	db pgx.Tx
}

const tryLock = `SELECT pg_try_advisory_xact_lock($1)`

// TryLock tries the advisory key.
func (q *Queries) TryLock(ctx context.Context, key int64) (bool, error) { // want TryLock:`^locks\(advisory:\(\?p2\)\|@.* exclusive@p0\.db\) holds\[0\] tries\(0=result0\)$`
	row := q.db.QueryRow(ctx, tryLock, key)
	var pg_try_advisory_xact_lock bool
	err := row.Scan(&pg_try_advisory_xact_lock)
	return pg_try_advisory_xact_lock, err
}

// Settle and Reverse take ledgers and balances in opposite orders, but
// only under the settlement key, which both got: they are serialised.
func Settle(ctx context.Context, q *Queries) error { // want Settle:`^locks\(advisory:\(8104\) exclusive@p1\.db, table:ledgers ROW EXCLUSIVE@p1\.db, row:ledgers FOR NO KEY UPDATE@p1\.db, table:balances ROW EXCLUSIVE@p1\.db, row:balances FOR NO KEY UPDATE@p1\.db\) holds\[0 1 2 3 4\]$`
	ok, err := q.TryLock(ctx, 8104)
	if err != nil || !ok {
		return err
	}
	if _, err := q.db.Exec(ctx, "UPDATE ledgers SET settled = true WHERE id = $1", 1); err != nil {
		return err
	}
	_, err = q.db.Exec(ctx, "UPDATE balances SET amount = 0 WHERE id = $1", 1)
	return err
}

// Reverse is Settle's other order, under the same key.
func Reverse(ctx context.Context, q *Queries) error { // want Reverse:`^locks\(advisory:\(8104\) exclusive@p1\.db, table:balances ROW EXCLUSIVE@p1\.db, row:balances FOR NO KEY UPDATE@p1\.db, table:ledgers ROW EXCLUSIVE@p1\.db, row:ledgers FOR NO KEY UPDATE@p1\.db\) holds\[0 1 2 3 4\]$`
	ok, err := q.TryLock(ctx, 8104)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	if _, err := q.db.Exec(ctx, "UPDATE balances SET amount = 1 WHERE id = $1", 1); err != nil {
		return err
	}
	_, err = q.db.Exec(ctx, "UPDATE ledgers SET settled = false WHERE id = $1", 1)
	return err
}

// Stamp takes audit_marks then audit_logs, under the settlement key.
func Stamp(ctx context.Context, q *Queries) error { // want Stamp:`^locks\(advisory:\(8104\) exclusive@p1\.db, table:audit_marks ROW EXCLUSIVE@p1\.db, row:audit_marks FOR NO KEY UPDATE@p1\.db, table:audit_logs ROW EXCLUSIVE@p1\.db, row:audit_logs FOR NO KEY UPDATE@p1\.db\) holds\[0 1 2 3 4\]$`
	if ok, err := q.TryLock(ctx, 8104); err != nil || !ok {
		return err
	}
	if _, err := q.db.Exec(ctx, "UPDATE audit_marks SET stamped = true WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := q.db.Exec(ctx, "UPDATE audit_logs SET stamped = true WHERE id = $1", 1)
	return err
}

// Audit is the near miss: it tries the key but goes on whether it got it
// or not, so the key is no gate for it and it deadlocks with Stamp.
func Audit(ctx context.Context, q *Queries) error { // want Audit:`^locks\(advisory:\(8104\) exclusive@p1\.db, table:audit_logs ROW EXCLUSIVE@p1\.db, row:audit_logs FOR NO KEY UPDATE@p1\.db, table:audit_marks ROW EXCLUSIVE@p1\.db, row:audit_marks FOR NO KEY UPDATE@p1\.db\) holds\[0 1 2 3 4\]$`
	if _, err := q.TryLock(ctx, 8104); err != nil {
		return err
	}
	if _, err := q.db.Exec(ctx, "UPDATE audit_logs SET audited = true WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := q.db.Exec(ctx, "UPDATE audit_marks SET audited = true WHERE id = $1", 1) // want `lock-order inversion: rows of audit_logs and rows of audit_marks are locked in opposite orders`
	return err
}

// Skip claims whatever queue rows are free with SKIP LOCKED: it never
// waits, and holds the rows it got while it updates the queue's counter.
func Skip(ctx context.Context, tx pgx.Tx) error { // want Skip:`^locks\(table:queue_items ROW SHARE@p1, row:queue_items FOR UPDATE@p1, table:queue_counters ROW EXCLUSIVE@p1, row:queue_counters FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.Exec(ctx, "SELECT id FROM queue_items WHERE id = $1 FOR UPDATE SKIP LOCKED", 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE queue_counters SET claimed = claimed + 1 WHERE id = $1", 1)
	return err
}

// Requeue locks the counter, then waits for the item: Skip holds the item
// it got while it waits for the counter.
func Requeue(ctx context.Context, tx pgx.Tx) error { // want Requeue:`^locks\(table:queue_counters ROW EXCLUSIVE@p1, row:queue_counters FOR NO KEY UPDATE@p1, table:queue_items ROW EXCLUSIVE@p1, row:queue_items FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.Exec(ctx, "UPDATE queue_counters SET claimed = claimed - 1 WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE queue_items SET state = 'queued' WHERE id = $1", 1) // want `lock-order inversion: rows of queue_counters and rows of queue_items are locked in opposite orders`
	return err
}
