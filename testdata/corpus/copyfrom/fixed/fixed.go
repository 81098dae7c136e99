package fixed // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Scheduler records builds.
type Scheduler struct {
	pool *pgxpool.Pool
}

// Finish copies the artifacts first, then updates the build: the order
// Prune keeps (the artifacts table, then the build rows). Silent.
func (s *Scheduler) Finish(ctx context.Context, buildID int64, paths []string) error { // want Finish:`locks\(.*table:cff_artifacts ROW EXCLUSIVE@L0.*row:cff_builds FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	rows := make([][]any, len(paths))
	for i, p := range paths {
		rows[i] = []any{buildID, p}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"public", "cff_artifacts"}, []string{"build_id", "path"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE cff_builds SET status = 'done' WHERE id = $1", buildID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Prune keeps uploads out, then marks the pipeline's builds.
func (s *Scheduler) Prune(ctx context.Context, pipelineID int64) error { // want Prune:`locks\(.*table:cff_artifacts SHARE ROW EXCLUSIVE@L0.*row:cff_builds FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE cff_artifacts IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE cff_builds SET status = 'pruned' WHERE pipeline_id = $1", pipelineID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
