package skiplocked // want package:"sql=true edges=34"

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Worker claims jobs from a queue table.
type Worker struct {
	pool *pgxpool.Pool
}

// Enqueue locks the queue's batch row, then the job.
func (w *Worker) Enqueue(ctx context.Context, batchID, jobID int64) error { // want Enqueue:`locks\(.*row:job_batches FOR NO KEY UPDATE@L0.*row:jobs FOR NO KEY UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE job_batches SET pending = pending + 1 WHERE id = $1", batchID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE jobs SET state = 'queued' WHERE id = $1", jobID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Claim locks a job and then its batch with SKIP LOCKED: it never waits for
// a row, so it cannot close a cycle with Enqueue.
func (w *Worker) Claim(ctx context.Context, batchID int64) (int64, error) { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:job_batches FOR UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	var jobID int64
	if err := tx.QueryRow(ctx, "SELECT id FROM jobs WHERE batch_id = $1 AND state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE", batchID).Scan(&jobID); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM job_batches WHERE id = $1 FOR UPDATE SKIP LOCKED", batchID); err != nil {
		return 0, err
	}
	return jobID, tx.Commit(ctx)
}

// Reserve locks a seat, then a booking.
func (w *Worker) Reserve(ctx context.Context, seatID, bookingID int64) error { // want Reserve:`locks\(.*row:seats FOR NO KEY UPDATE@L0.*row:bookings FOR NO KEY UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE seats SET held = true WHERE id = $1", seatID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE bookings SET seat_id = $2 WHERE id = $1", bookingID, seatID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// ErrBusy is returned when a row is locked by someone else.
var ErrBusy = errors.New("busy")

// Release locks the booking, then tries the seat with NOWAIT: it fails at
// once instead of waiting, so it cannot deadlock with Reserve.
func (w *Worker) Release(ctx context.Context, seatID, bookingID int64) error { // want Release:`locks\(.*row:bookings FOR NO KEY UPDATE@L0.*row:seats FOR UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE bookings SET seat_id = NULL WHERE id = $1", bookingID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM seats WHERE id = $1 FOR UPDATE NOWAIT", seatID); err != nil {
		return ErrBusy
	}
	return tx.Commit(ctx)
}

// Rebalance takes the rebalance advisory lock, then updates a shard.
func (w *Worker) Rebalance(ctx context.Context, shardID int64) error { // want Rebalance:`locks\(.*advisory:\(7001`
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7001)"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE shards SET owner = 'rebalancer' WHERE id = $1", shardID)
		return err
	})
}

// Heartbeat updates the shard and then only tries the advisory lock.
func (w *Worker) Heartbeat(ctx context.Context, shardID int64) (bool, error) { // want Heartbeat:`locks\(.*row:shards FOR NO KEY UPDATE@L0.*advisory:\(7001`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE shards SET seen_at = now() WHERE id = $1", shardID); err != nil {
		return false, err
	}
	var ok bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(7001)").Scan(&ok); err != nil {
		return false, err
	}
	return ok, tx.Commit(ctx)
}

// Archive locks an archive row, then a ledger row.
func (w *Worker) Archive(ctx context.Context, id int64) error { // want Archive:`locks\(.*row:archives FOR UPDATE@L0.*row:ledgers FOR UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM archives WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM ledgers WHERE id = $1 FOR UPDATE", id); err != nil { // want `lock-order inversion: rows of archives and rows of ledgers are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Restore locks them the other way round, and waits: a real deadlock.
func (w *Worker) Restore(ctx context.Context, id int64) error { // want Restore:`locks\(.*row:ledgers FOR UPDATE@L0.*row:archives FOR UPDATE@L0`
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM ledgers WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM archives WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
