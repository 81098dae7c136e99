package advisory

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// The unlock and the release of a dedicated connection in one deferred
// closure: what counts is their order inside the closure, and whether the
// unlock runs on every path to the release.

// closeUnlocked unlocks, then closes, in one deferred closure: the
// connection goes back to the pool with the lock already off. Silent.
func closeUnlocked(ctx context.Context, db *sql.DB, key int64, fn func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		_ = conn.Close()
		return err
	}
	defer func() {
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", key)
		_ = conn.Close()
	}()
	return fn(conn)
}

// tryCloseUnlocked is the try-lock form, which discards the connection
// when the unlock is not confirmed: the unlock still runs on every path
// before the Close. Silent.
func tryCloseUnlocked(ctx context.Context, db *sql.DB, key int64, fn func(*sql.Conn) error) (bool, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, err
	}
	var got bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil || !got {
		_ = conn.Close()
		return false, err
	}
	defer func() {
		var released bool
		err := conn.QueryRowContext(context.Background(), "SELECT pg_advisory_unlock($1)", key).Scan(&released)
		if err != nil || !released {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		_ = conn.Close()
	}()
	return true, fn(conn)
}

// closeThenUnlock closes first: the unlock runs on a connection already
// back in the pool, too late.
func closeThenUnlock(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(710)"); err != nil {
		_ = conn.Close()
		return err
	}
	defer func() {
		_ = conn.Close() // want `session-level advisory lock \(710\), taken at advisory/sessionclose.go:62:31, may still be held here, where the connection goes back to the pool`
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(710)")
	}()
	return fn(conn)
}

// unlockIfDone unlocks only on one branch: on the other the connection
// goes back to the pool with the lock held. Its key is known only at run
// time: the lock is named after where it is taken, once.
func unlockIfDone(ctx context.Context, db *sql.DB, key int64, done bool, fn func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		_ = conn.Close()
		return err
	}
	defer func() {
		if done {
			_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", key)
		}
		_ = conn.Close() // want `^session-level advisory lock taken at advisory/sessionclose.go:81:31 may still be held here, where`
	}()
	return fn(conn)
}

// giveBack unlocks only when told to, then gives the connection back: a
// helper the caller defers.
func giveBack(conn *sql.Conn, unlock bool) {
	if unlock {
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(712)")
	}
	_ = conn.Close()
}

// releaseThroughHelper defers a helper that may skip the unlock: reported
// at the defer, naming the Close in the helper.
func releaseThroughHelper(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(712)"); err != nil {
		_ = conn.Close()
		return err
	}
	defer giveBack(conn, false) // want `session-level advisory lock \(712\), taken at advisory/sessionclose.go:110:31, may still be held at advisory/sessionclose.go:100:16 \(in advisory.giveBack, called here\)`
	return fn(conn)
}

// unlockAndGiveBack unlocks, then gives the connection back.
func unlockAndGiveBack(conn *sql.Conn) {
	_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(713)")
	_ = conn.Close()
}

// releaseUnlockedThroughHelper defers a helper that always unlocks first.
// Silent.
func releaseUnlockedThroughHelper(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(713)"); err != nil {
		_ = conn.Close()
		return err
	}
	defer unlockAndGiveBack(conn)
	return fn(conn)
}
