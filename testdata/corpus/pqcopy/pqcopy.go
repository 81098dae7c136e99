package pqcopy // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lib/pq"
)

// Finish marks the build, then copies its artifacts with lib/pq's COPY
// FROM STDIN (a prepared CopyIn statement run once per row): the table's
// ROW EXCLUSIVE lock, after the build row.
func Finish(ctx context.Context, db *sql.DB, buildID int64, paths []string) error { // want Finish:`locks\(.*row:pc_builds FOR NO KEY UPDATE@L0.*table:pc_artifacts ROW EXCLUSIVE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE pc_builds SET status = 'done' WHERE id = $1", buildID); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("pc_artifacts", "build_id", "path"))
	if err != nil {
		return err
	}
	for _, p := range paths {
		if _, err := stmt.ExecContext(ctx, buildID, p); err != nil {
			return err
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		return err
	}
	if err := stmt.Close(); err != nil {
		return err
	}
	return tx.Commit()
}

// Prune keeps uploads out, then marks the pipeline's builds (the table name
// quoted by pq.QuoteIdentifier): the opposite order.
func Prune(ctx context.Context, db *sql.DB, pipelineID int64) error { // want Prune:`locks\(.*table:pc_artifacts SHARE ROW EXCLUSIVE@L0.*row:pc_builds FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE pc_artifacts IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return err
	}
	q := fmt.Sprintf("UPDATE %s SET status = 'pruned' WHERE pipeline_id = $1", pq.QuoteIdentifier("pc_builds"))
	if _, err := tx.ExecContext(ctx, q, pipelineID); err != nil { // want `lock-order inversion: rows of pc_builds and table pc_artifacts are locked in opposite orders`
		return err
	}
	return tx.Commit()
}
