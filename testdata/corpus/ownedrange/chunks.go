package ownedrange // want package:"sql=true edges=16"

// A range of the rows that belong to one parent (the chunks of one file
// between two offsets), or a sub-query that picks them within the parent,
// is read with one predicate and one plan by every execution: its rows come
// in one order; so is a join of rows each selected by its key. A range
// across all parents, or keys the caller lists, is a set each caller
// chooses.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ZeroChunks locks the chunks of one file between two indexes.
func ZeroChunks(ctx context.Context, tx pgx.Tx, inode int64, from, to int) error { // want ZeroChunks:`^locks\(table:or_chunks ROW SHARE@p1, row:or_chunks FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "SELECT indx FROM or_chunks WHERE inode = $1 AND indx > $2 AND indx < $3 FOR UPDATE", inode, from, to)
	return err
}

// ExpireChunks locks the chunks of every file written before a time.
func ExpireChunks(ctx context.Context, tx pgx.Tx, before int64) error { // want ExpireChunks:`^locks\(table:or_chunks ROW SHARE@p1, row:or_chunks FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "SELECT indx FROM or_chunks WHERE written_at < $1 FOR UPDATE", before) // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of or_chunks \(FOR UPDATE\), several of them \(a range\)`
	return err
}

// TrimQueue deletes the oldest tasks of one queue: the sub-query picks them
// within that queue, by a range and a LIMIT, not from a set the caller
// passes.
func TrimQueue(ctx context.Context, tx pgx.Tx, queue int64, before int64, n int) error { // want TrimQueue:`^locks\(table:or_tasks ROW EXCLUSIVE@p1, row:or_tasks FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, trimQueue, queue, before, n)
	return err
}

const trimQueue = `DELETE FROM or_tasks WHERE queue = $1 AND task_id IN (
    SELECT task_id FROM or_tasks WHERE queue = $1 AND task_id < $2 ORDER BY task_id LIMIT $3)`

// DropTasks deletes the tasks of one queue that the caller lists.
func DropTasks(ctx context.Context, tx pgx.Tx, queue int64, ids []int64) error { // want DropTasks:`^locks\(table:or_tasks ROW EXCLUSIVE@p1, row:or_tasks FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "DELETE FROM or_tasks WHERE queue = $1 AND task_id IN (SELECT unnest($2::bigint[]))", queue, ids) // want `unordered multi-row lock: DELETE takes rows of or_tasks \(FOR UPDATE\), several of them \(IN \(sub-query\)\)`
	return err
}

// LockRun locks one run and its task: each selected by its key, the task
// through the run's column.
func LockRun(ctx context.Context, tx pgx.Tx, runID int64) error { // want LockRun:`^locks\(table:or_runs ROW SHARE@p1, table:or_jobs ROW SHARE@p1, row:or_runs FOR UPDATE@p1, row:or_jobs FOR UPDATE@p1\) holds\[0 1 2 3\]$`
	_, err := tx.Exec(ctx, "SELECT r.id FROM or_runs r JOIN or_jobs j ON j.id = r.job_id WHERE r.id = $1 FOR UPDATE", runID)
	return err
}

// LockQueueRuns locks the runs of a queue and their tasks.
func LockQueueRuns(ctx context.Context, tx pgx.Tx, queue int64) error { // want LockQueueRuns:`^locks\(table:or_runs ROW SHARE@p1, table:or_jobs ROW SHARE@p1, row:or_runs FOR UPDATE@p1, row:or_jobs FOR UPDATE@p1\) holds\[0 1 2 3\]$`
	_, err := tx.Exec(ctx, "SELECT r.id FROM or_runs r JOIN or_jobs j ON j.id = r.job_id WHERE r.queue = $1 FOR UPDATE", queue) // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of or_jobs \(FOR UPDATE\), several of them \(a join\)` `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of or_runs \(FOR UPDATE\), several of them \(a join\)`
	return err
}
