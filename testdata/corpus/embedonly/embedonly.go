package embedonly // want package:"sql=true edges=[0-9]+"

// The package runs statements whose text a queries package reads from
// embedded files: draining a runner locks it, then requeues its builds;
// cancelling a build locks it, then frees its runner.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/embedonly/queries"
)

// Scheduler moves builds between runners.
type Scheduler struct{ pool *pgxpool.Pool }

// Drain takes a runner out of service.
func (s *Scheduler) Drain(ctx context.Context, runnerID int64) error { // want Drain:`locks\(.*row:eo_runners FOR UPDATE@L0.*row:eo_builds FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, queries.Get("lock_runner"), runnerID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, queries.Get("requeue"), runnerID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Cancel stops a build and frees its runner.
func (s *Scheduler) Cancel(ctx context.Context, buildID int64) error { // want Cancel:`locks\(.*row:eo_builds FOR UPDATE@L0.*row:eo_runners FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, queries.Get("lock_build"), buildID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, queries.Get("free_runner"), buildID); err != nil { // want `lock-order inversion: rows of eo_builds and rows of eo_runners are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Assign and Release both lock the queue, then its workers: one order, with
// statements from the same embedded files, and nothing to report.
func (s *Scheduler) Assign(ctx context.Context, queueID int64) error { // want Assign:`locks\(.*row:eo_queues FOR UPDATE@C0/L0.*row:eo_workers FOR NO KEY UPDATE@C0/L0`
	return s.queueThenWorkers(ctx, queueID)
}

// Release is Assign's other caller.
func (s *Scheduler) Release(ctx context.Context, queueID int64) error { // want Release:`locks\(.*row:eo_queues FOR UPDATE@C0/L0.*row:eo_workers FOR NO KEY UPDATE@C0/L0`
	return s.queueThenWorkers(ctx, queueID)
}

func (s *Scheduler) queueThenWorkers(ctx context.Context, queueID int64) error { // want queueThenWorkers:`locks\(.*row:eo_queues FOR UPDATE@L0.*row:eo_workers FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, queries.Get("lock_queue"), queueID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, queries.Get("bump_workers"), queueID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
