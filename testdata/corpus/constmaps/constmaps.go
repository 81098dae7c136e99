package constmaps // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/constmaps/queries"
)

// q holds this package's statements as the fields of a struct literal.
var q = struct {
	lockBuild  string
	freeRunner string
}{
	lockBuild:  "SELECT id FROM cm_builds WHERE id = $1 FOR UPDATE",
	freeRunner: "UPDATE cm_runners SET current_build = NULL WHERE current_build = $1",
}

// Scheduler hands builds to runners.
type Scheduler struct {
	pool *pgxpool.Pool
}

// Drain locks the runner, then requeues its builds (statements of another
// package's map literal, through its Get).
func (s *Scheduler) Drain(ctx context.Context, runnerID int64) error { // want Drain:`locks\(.*row:cm_runners FOR UPDATE@L0.*row:cm_builds FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, queries.Get("lock_runner"), runnerID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, queries.Get("requeue"), runnerID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Cancel locks the build, then frees its runner (this package's struct
// fields): the opposite order.
func (s *Scheduler) Cancel(ctx context.Context, buildID int64) error { // want Cancel:`locks\(.*row:cm_builds FOR UPDATE@L0.*row:cm_runners FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, q.lockBuild, buildID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, q.freeRunner, buildID); err != nil { // want `lock-order inversion: rows of cm_builds and rows of cm_runners are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}
