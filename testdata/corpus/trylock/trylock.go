// Package trylock holds the try-lock cases: pg_try_advisory_* holds its
// lock only where its result was true, NOWAIT holds nothing where it
// failed, and a try-lock held on its true branch still gates what follows.
package trylock

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
)

// Invalidate marks a cache row stale, then waits for the refresh key.
func Invalidate(ctx context.Context, tx pgx.Tx) error { // want Invalidate:`^locks\(table:caches ROW EXCLUSIVE@p1, row:caches FOR NO KEY UPDATE@p1, advisory:\(8101\) exclusive@p1\) holds\[0 1 2\]$`
	if _, err := tx.Exec(ctx, "UPDATE caches SET stale = true WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(8101)")
	return err
}

// RefreshOrMark tries the refresh key; only when someone else holds it
// does it mark the cache as wanted. Where it updates that row it does not
// hold the key: no cycle with Want.
func RefreshOrMark(ctx context.Context, tx pgx.Tx) error { // want RefreshOrMark:`^locks\(advisory:\(8101\) exclusive@p1, table:cache_stats ROW EXCLUSIVE@p1, row:cache_stats FOR NO KEY UPDATE@p1, table:cache_wants ROW EXCLUSIVE@p1, row:cache_wants FOR NO KEY UPDATE@p1\) holds\[0 1 2 3 4\]$`
	var ok bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(8101)").Scan(&ok); err != nil {
		return err
	}
	if !ok {
		_, err := tx.Exec(ctx, "UPDATE cache_wants SET wanted = true WHERE id = $1", 1)
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE cache_stats SET refreshed = refreshed + 1 WHERE id = $1", 1)
	return err
}

// Want marks the cache as wanted, then waits for the refresh key.
func Want(ctx context.Context, tx pgx.Tx) error { // want Want:`^locks\(table:cache_wants ROW EXCLUSIVE@p1, row:cache_wants FOR NO KEY UPDATE@p1, advisory:\(8101\) exclusive@p1\) holds\[0 1 2\]$`
	if _, err := tx.Exec(ctx, "UPDATE cache_wants SET wanted = true WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(8101)")
	return err
}

// Refresh updates the cache row where it got the key: it holds the key
// while it waits for the row that Invalidate holds while it waits for the
// key, a real deadlock.
func Refresh(ctx context.Context, tx pgx.Tx) error { // want Refresh:`^locks\(advisory:\(8101\) exclusive@p1, table:caches ROW EXCLUSIVE@p1, row:caches FOR NO KEY UPDATE@p1\) holds\[0 1 2\]$`
	var ok bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(8101)").Scan(&ok); err != nil {
		return err
	}
	if ok {
		_, err := tx.Exec(ctx, "UPDATE caches SET rebuilt_at = now() WHERE id = $1", 1) // want `lock-order inversion: advisory lock \(8101\) and rows of caches are locked in opposite orders`
		return err
	}
	return nil
}

// Compact gives up when the key is taken, then updates the report row
// while holding it: a deadlock with Publish.
func Compact(ctx context.Context, db *sql.DB) error { // want Compact:`^locks\(advisory:\(8102\) exclusive@L0, table:reports ROW EXCLUSIVE@L0, row:reports FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var ok bool
	if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(8102)").Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE reports SET compacted = true WHERE id = $1", 1); err != nil { // want `lock-order inversion: advisory lock \(8102\) and rows of reports are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// CompactOrSkip is Compact's near miss: when the key is taken it records
// the skip without it, so it cannot deadlock with Unskip.
func CompactOrSkip(ctx context.Context, db *sql.DB) error { // want CompactOrSkip:`^locks\(advisory:\(8102\) exclusive@L0, table:report_skips ROW EXCLUSIVE@L0, row:report_skips FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var ok bool
	if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(8102)").Scan(&ok); err != nil {
		return err
	}
	if ok {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, "UPDATE report_skips SET skipped = true WHERE id = $1", 1); err != nil {
		return err
	}
	return tx.Commit()
}

// Publish locks the report row, then waits for the compaction key.
func Publish(ctx context.Context, db *sql.DB) error { // want Publish:`^locks\(table:reports ROW EXCLUSIVE@L0, row:reports FOR NO KEY UPDATE@L0, advisory:\(8102\) exclusive@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE reports SET published = true WHERE id = $1", 1); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(8102)"); err != nil {
		return err
	}
	return tx.Commit()
}

// Unskip clears the skip, then waits for the compaction key.
func Unskip(ctx context.Context, db *sql.DB) error { // want Unskip:`^locks\(table:report_skips ROW EXCLUSIVE@L0, row:report_skips FOR NO KEY UPDATE@L0, advisory:\(8102\) exclusive@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE report_skips SET skipped = false WHERE id = $1", 1); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(8102)"); err != nil {
		return err
	}
	return tx.Commit()
}
