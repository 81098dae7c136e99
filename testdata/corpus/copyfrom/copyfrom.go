package copyfrom // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DBTX is what the helpers run on: a pool or a transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error)
}

// Scheduler records builds.
type Scheduler struct {
	pool *pgxpool.Pool
}

// saveArtifacts copies a build's artifacts: COPY FROM takes the table's ROW
// EXCLUSIVE lock, as an INSERT does.
func saveArtifacts(ctx context.Context, q DBTX, buildID int64, paths []string) error {
	rows := make([][]any, len(paths))
	for i, p := range paths {
		rows[i] = []any{buildID, p}
	}
	_, err := q.CopyFrom(ctx, pgx.Identifier{"cf_artifacts"}, []string{"build_id", "path"}, pgx.CopyFromRows(rows))
	return err
}

// Finish updates the build row, then copies its artifacts.
func (s *Scheduler) Finish(ctx context.Context, buildID int64, paths []string) error { // want Finish:`locks\(.*row:cf_builds FOR NO KEY UPDATE@L0.*table:cf_artifacts ROW EXCLUSIVE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE cf_builds SET status = 'done' WHERE id = $1", buildID); err != nil {
		return err
	}
	if err := saveArtifacts(ctx, tx, buildID, paths); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Prune keeps uploads out, then marks the pipeline's builds: the opposite
// order, since SHARE ROW EXCLUSIVE conflicts with COPY's ROW EXCLUSIVE.
func (s *Scheduler) Prune(ctx context.Context, pipelineID int64) error { // want Prune:`locks\(.*table:cf_artifacts SHARE ROW EXCLUSIVE@L0.*row:cf_builds FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE cf_artifacts IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE cf_builds SET status = 'pruned' WHERE pipeline_id = $1", pipelineID); err != nil { // want `lock-order inversion: rows of cf_builds and table cf_artifacts are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Import copies on the pool, after an autocommit UPDATE: it holds nothing
// between the two, so it closes no cycle.
func (s *Scheduler) Import(ctx context.Context, buildID int64, paths []string) error { // want Import:`locks\(.*row:cf_builds FOR NO KEY UPDATE@p0.pool.*table:cf_artifacts ROW EXCLUSIVE@p0.pool`
	if _, err := s.pool.Exec(ctx, "UPDATE cf_builds SET status = 'imported' WHERE id = $1", buildID); err != nil {
		return err
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"cf_artifacts"}, []string{"build_id", "path"}, pgx.CopyFromSlice(len(paths), func(i int) ([]any, error) {
		return []any{buildID, paths[i]}, nil
	}))
	return err
}
