package trylock // want package:"sql=true edges=99"

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Claim takes a job's key in the WHERE clause: the row comes back only
// where the key was granted. On ErrNoRows it does not hold the key while
// it bumps the job's retry counter: no cycle with Retry.
func Claim(ctx context.Context, tx pgx.Tx, id int64) error { // want Claim:`^locks\(table:jobs ACCESS SHARE@p1, advisory:\(8103\) exclusive@p1, table:job_retries ROW EXCLUSIVE@p1, row:job_retries FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	var got int64
	err := tx.QueryRow(ctx, "SELECT id FROM jobs WHERE id = $1 AND pg_try_advisory_xact_lock(8103)", id).Scan(&got)
	if err != nil {
		_, err = tx.Exec(ctx, "UPDATE job_retries SET retries = retries + 1 WHERE id = $1", id)
		return err
	}
	return nil
}

// ClaimAndRun updates the job where it got the key: a deadlock with
// Cancel.
func ClaimAndRun(ctx context.Context, tx pgx.Tx, id int64) error { // want ClaimAndRun:`^locks\(table:jobs ACCESS SHARE@p1, advisory:\(8103\) exclusive@p1, table:job_runs ROW EXCLUSIVE@p1, row:job_runs FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	var got int64
	if err := tx.QueryRow(ctx, "SELECT id FROM jobs WHERE id = $1 AND pg_try_advisory_xact_lock(8103)", id).Scan(&got); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE job_runs SET state = 'running' WHERE id = $1", got) // want `lock-order inversion: advisory lock \(8103\) and rows of job_runs are locked in opposite orders`
	return err
}

// Retry bumps the retry counter, then waits for the job's key.
func Retry(ctx context.Context, tx pgx.Tx, id int64) error { // want Retry:`^locks\(table:job_retries ROW EXCLUSIVE@p1, row:job_retries FOR NO KEY UPDATE@p1, advisory:\(8103\) exclusive@p1\) holds\[0 1 2\]$`
	if _, err := tx.Exec(ctx, "UPDATE job_retries SET retries = 0 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(8103)")
	return err
}

// Cancel locks the job's run, then waits for the job's key.
func Cancel(ctx context.Context, tx pgx.Tx, id int64) error { // want Cancel:`^locks\(table:job_runs ROW EXCLUSIVE@p1, row:job_runs FOR NO KEY UPDATE@p1, advisory:\(8103\) exclusive@p1\) holds\[0 1 2\]$`
	if _, err := tx.Exec(ctx, "UPDATE job_runs SET state = 'cancelled' WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(8103)")
	return err
}

// ErrBusy says a row was locked by someone else.
type ErrBusy struct{}

func (ErrBusy) Error() string { return "busy" }

// Move holds the seat it got with NOWAIT while it waits for the booking: a
// deadlock with Book.
func Move(ctx context.Context, tx pgx.Tx, id int64) error { // want Move:`^locks\(table:seats ROW SHARE@p1, row:seats FOR UPDATE@p1, table:bookings ROW EXCLUSIVE@p1, row:bookings FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	var seat int64
	if err := tx.QueryRow(ctx, "SELECT id FROM seats WHERE id = $1 FOR UPDATE NOWAIT", id).Scan(&seat); err != nil {
		return ErrBusy{}
	}
	_, err := tx.Exec(ctx, "UPDATE bookings SET seat_id = $1 WHERE id = $1", seat)
	return err
}

// Book locks the booking, then waits for the seat.
func Book(ctx context.Context, tx pgx.Tx, id int64) error { // want Book:`^locks\(table:bookings ROW EXCLUSIVE@p1, row:bookings FOR NO KEY UPDATE@p1, table:seats ROW SHARE@p1, row:seats FOR UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.Exec(ctx, "UPDATE bookings SET seat_id = $1 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM seats WHERE id = $1 FOR UPDATE", id) // want `lock-order inversion: rows of bookings and rows of seats are locked in opposite orders`
	return err
}
