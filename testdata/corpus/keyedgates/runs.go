package keyedgates

// A transaction that locks a parent row first and then rows of other tables
// chosen by the same run-time values (a run's timers and activities after
// the run's row, under other column names) is serialised by the parent row:
// two executions that touch the same child rows name the same run, and the
// second waits for the first at the run's row. The parent may be locked by
// a helper, the children by others (the values flow through their
// parameters and the filter structs callers build). A parent keyed by
// another value than the children gates nothing.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DBTX runs statements on a pool or in the caller's transaction.
type DBTX interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	Query(context.Context, string, ...any) (pgx.Rows, error)
	QueryRow(context.Context, string, ...any) pgx.Row
}

// RunKey names a workflow run: its row in kg_runs has this composite key.
type RunKey struct {
	Shard     int32
	Namespace string
	Workflow  string
	Run       string
}

// TimersFilter selects some timers of one run.
type TimersFilter struct {
	Shard     int32
	Namespace string
	Workflow  string
	Run       string
	IDs       []int64
}

// lockRun locks the run's row: every mutation of a run takes it first.
func lockRun(ctx context.Context, db DBTX, k RunKey) error {
	var next int64
	return db.QueryRow(ctx, "SELECT next_event_id FROM kg_runs WHERE shard_id = $1 AND namespace_id = $2 AND workflow_id = $3 AND run_id = $4 FOR UPDATE",
		k.Shard, k.Namespace, k.Workflow, k.Run).Scan(&next)
}

// deleteTimers deletes some timers of a run: the timer table names the
// run's columns differently.
func deleteTimers(ctx context.Context, db DBTX, f TimersFilter) error {
	_, err := db.Exec(ctx, "DELETE FROM kg_timers WHERE shard = $1 AND namespace = $2 AND workflow = $3 AND run = $4 AND timer_id = ANY($5)",
		f.Shard, f.Namespace, f.Workflow, f.Run, f.IDs)
	return err
}

// deleteActivities deletes some activities of a run.
func deleteActivities(ctx context.Context, db DBTX, k RunKey, ids []int64) error {
	_, err := db.Exec(ctx, "DELETE FROM kg_activities WHERE shard = $1 AND namespace = $2 AND workflow = $3 AND run = $4 AND activity_id = ANY($5)",
		k.Shard, k.Namespace, k.Workflow, k.Run, ids)
	return err
}

// UpdateRun locks the run, then deletes some of its timers and activities
// (sets the caller chooses, in no order): serialised by the run's row.
func UpdateRun(ctx context.Context, tx pgx.Tx, k RunKey, timers, activities []int64) error { // want UpdateRun:`^locks\(`
	if err := lockRun(ctx, tx, k); err != nil {
		return err
	}
	if err := deleteTimers(ctx, tx, TimersFilter{Shard: k.Shard, Namespace: k.Namespace, Workflow: k.Workflow, Run: k.Run, IDs: timers}); err != nil {
		return err
	}
	return deleteActivities(ctx, tx, k, activities)
}

// ResetRun locks the run, then deletes activities before timers: the other
// order, under the same run's row.
func ResetRun(ctx context.Context, tx pgx.Tx, k RunKey, timers, activities []int64) error { // want ResetRun:`^locks\(`
	if err := lockRun(ctx, tx, k); err != nil {
		return err
	}
	if err := deleteActivities(ctx, tx, k, activities); err != nil {
		return err
	}
	return deleteTimers(ctx, tx, TimersFilter{Shard: k.Shard, Namespace: k.Namespace, Workflow: k.Workflow, Run: k.Run, IDs: timers})
}

// PurgeTimers deletes timers without the run's row: reported.
func PurgeTimers(ctx context.Context, tx pgx.Tx, k RunKey, timers []int64) error { // want PurgeTimers:`^locks\(`
	return deleteTimers(ctx, tx, TimersFilter{Shard: k.Shard, Namespace: k.Namespace, Workflow: k.Workflow, Run: k.Run, IDs: timers}) // want `(?s)unordered multi-row lock: DELETE takes rows of kg_timers.*also: the same statement in the transactions of keyedgates\.MoveTimers, keyedgates\.MoveTimersSameShard \(one fix`
}

// MoveTimers locks run k, then deletes timers of another run: the row of k
// does not stand for the other run's timers.
func MoveTimers(ctx context.Context, tx pgx.Tx, k, other RunKey, timers []int64) error { // want MoveTimers:`^locks\(`
	if err := lockRun(ctx, tx, k); err != nil {
		return err
	}
	return deleteTimers(ctx, tx, TimersFilter{Shard: other.Shard, Namespace: other.Namespace, Workflow: other.Workflow, Run: other.Run, IDs: timers}) // reported with PurgeTimers
}

// MoveTimersSameShard locks run k, then deletes timers keyed by k's shard
// but other's run: one value in common is not enough.
func MoveTimersSameShard(ctx context.Context, tx pgx.Tx, k, other RunKey, timers []int64) error { // want MoveTimersSameShard:`^locks\(`
	if err := lockRun(ctx, tx, k); err != nil {
		return err
	}
	return deleteTimers(ctx, tx, TimersFilter{Shard: k.Shard, Namespace: k.Namespace, Workflow: k.Workflow, Run: other.Run, IDs: timers}) // reported with PurgeTimers
}
