package advisory

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"
)

var errNothingToDo = errors.New("nothing to do")

// Nightly takes the job lock on a pooled connection, but an early return
// skips the unlock: Release gives the connection back to the pool with the
// session lock still held, and the next user of that connection holds it.
func Nightly(ctx context.Context, pool *pgxpool.Pool, pending int) error { // want Nightly:`^locks\(advisory:\(700\) exclusive@L0\)$`
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release() // want `session-level advisory lock \(700\), taken at advisory/leak.go:[0-9]+:[0-9]+, may still be held here, where the connection goes back to the pool`
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(700)"); err != nil {
		return err // the lock failed: nothing to unlock
	}
	if pending == 0 {
		return errNothingToDo
	}
	_, err = conn.Exec(ctx, "SELECT pg_advisory_unlock(700)")
	return err
}

// NightlyFixed defers the unlock right after taking the lock: silent.
func NightlyFixed(ctx context.Context, pool *pgxpool.Pool, pending int) error { // want NightlyFixed:`^locks\(advisory:\(701\) exclusive@L0\)$`
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(701)"); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(701)") //nolint:errcheck
	if pending == 0 {
		return errNothingToDo
	}
	return nil
}
