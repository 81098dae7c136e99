package deferclosure // want package:"sql=true edges=1"

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

const migrationLock = int64(7)

func acquireLock(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock)
	return err
}

func releaseLock(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", migrationLock)
	return err
}

type migrator struct{ conn *pgx.Conn }

// migrate holds the migration lock only while it runs: the unlock sits in a
// deferred closure that captures the migrator and the named result.
func (m *migrator) migrate(ctx context.Context) (err error) { // want migrate:`locks\(advisory:\(7\) exclusive@p0.conn\)$`
	if err = acquireLock(ctx, m.conn); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() {
		if uerr := releaseLock(ctx, m.conn); err == nil {
			err = uerr
		}
	}()
	_, err = m.conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version int)")
	return err
}

// runTwice migrates, then takes the lock on another connection: the first
// lock was released by the deferred closure, so nothing waits.
func runTwice(ctx context.Context, conn, other *pgx.Conn) error {
	m := &migrator{conn: conn}
	if err := m.migrate(ctx); err != nil {
		return err
	}
	_, err := other.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock)
	return err
}

// lockedElsewhere holds the lock on one connection and then migrates on
// another: migrate waits for a lock its own program holds.
func lockedElsewhere(ctx context.Context, conn, other *pgx.Conn) error {
	if _, err := other.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return err
	}
	m := &migrator{conn: conn}
	return m.migrate(ctx) // want `application self-deadlock: deferclosure.lockedElsewhere holds advisory lock \(7\)`
}
