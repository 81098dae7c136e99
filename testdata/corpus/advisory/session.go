package advisory

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Reindex guards the reindex with a session lock on a dedicated connection,
// then locks the index catalog row.
func Reindex(ctx context.Context, pool *pgxpool.Pool, indexID int64) error { // want Reindex:`locks\(.*advisory:\(100`
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(100)"); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(100)")
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE search_indexes SET state = 'rebuilding' WHERE id = $1", indexID); err != nil { // want `(?s)lock-order inversion through a session-level advisory lock: advisory lock \(100\) and rows of search_indexes.*use pg_advisory_xact_lock`
		return err
	}
	return tx.Commit(ctx)
}

// DropIndex locks the catalog row first and then waits for the session lock.
func DropIndex(ctx context.Context, pool *pgxpool.Pool, indexID int64) error { // want DropIndex:`locks\(.*row:search_indexes FOR UPDATE@L1.*advisory:\(100`
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DELETE FROM search_indexes WHERE id = $1", indexID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_lock(100)"); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(100)")
	return tx.Commit(ctx)
}

// Singleton takes a session lock straight on the pool: the unlock may run on
// another pooled connection.
func Singleton(ctx context.Context, pool *pgxpool.Pool) error { // want Singleton:`locks\(.*advisory:\(200`
	if _, err := pool.Exec(ctx, "SELECT pg_advisory_lock(200)"); err != nil { // want `session-level advisory lock \(200\) is taken on a connection pool: the unlock may run on another pooled connection, and the lock then stays with a connection nobody owns`
		return err
	}
	defer pool.Exec(ctx, "SELECT pg_advisory_unlock(200)")
	return nil
}

// LegacySingleton does the same on a *sql.DB.
func LegacySingleton(ctx context.Context, db *sql.DB) error { // want LegacySingleton:`locks\(.*advisory:\(201`
	if _, err := db.ExecContext(ctx, "SELECT pg_advisory_lock(201)"); err != nil { // want `session-level advisory lock \(201\) is taken on a connection pool: the unlock may run on another pooled connection, and the lock then stays with a connection nobody owns`
		return err
	}
	_, err := db.ExecContext(ctx, "SELECT pg_advisory_unlock(201)")
	return err
}

// GuardedSingleton takes the lock on a dedicated connection and unlocks it
// there: silent.
func GuardedSingleton(ctx context.Context, db *sql.DB) error { // want GuardedSingleton:`locks\(.*advisory:\(202`
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(202)"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "SELECT pg_advisory_unlock(202)")
	return err
}
