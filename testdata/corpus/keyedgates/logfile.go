package keyedgates

// A durable task appends to its event log: it locks the task's log-file
// row, then upserts events of that task (the rows of a SELECT over arrays,
// in no order). The upsert's rows conflict on the task's columns, which it
// fills with the same values as the log file's key: two executions that
// upsert the same event rows lock the same log file first. The statements
// are generated-style helpers on a DBTX, their parameters in structs the
// callers build.

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Queries runs the statements on db.
type Queries struct{}

// LockLogFileParams names a task's log file.
type LockLogFileParams struct {
	TenantID   string
	TaskID     int64
	InsertedAt time.Time
}

// LockLogFile locks the log-file row of a task.
func (q *Queries) LockLogFile(ctx context.Context, db DBTX, arg LockLogFileParams) error { // want LockLogFile:`^locks\(`
	var n int64
	return db.QueryRow(ctx, "SELECT invocation_count FROM kg_log_files WHERE durable_task_id = $1 AND durable_task_inserted_at = $2 AND tenant_id = $3 FOR UPDATE",
		arg.TaskID, arg.InsertedAt, arg.TenantID).Scan(&n)
}

// UpsertEventsParams are the events of one task.
type UpsertEventsParams struct {
	TenantID   string
	TaskID     int64
	InsertedAt time.Time
	Keys       []string
	Children   []string
}

// UpsertEvents upserts events of one task, in the order of the arrays.
func (q *Queries) UpsertEvents(ctx context.Context, db DBTX, arg UpsertEventsParams) error { // want UpsertEvents:`^locks\(`
	_, err := db.Exec(ctx, `WITH input AS (SELECT unnest($4::text[]) AS event_key, unnest($5::text[]) AS child_id)
INSERT INTO kg_task_events (tenant_id, task_id, task_inserted_at, event_key, child_id)
SELECT $1::text, $2::bigint, $3::timestamptz, i.event_key, i.child_id FROM input i
ON CONFLICT (tenant_id, task_id, task_inserted_at, event_key) DO UPDATE SET child_id = EXCLUDED.child_id`,
		arg.TenantID, arg.TaskID, arg.InsertedAt, arg.Keys, arg.Children)
	return err
}

// Task is a durable task.
type Task struct {
	ID         int64
	InsertedAt time.Time
}

// Log appends events to durable tasks' logs.
type Log struct {
	q *Queries
}

// lockLog locks the task's log file.
func (l *Log) lockLog(ctx context.Context, tx DBTX, tenant string, taskID int64, insertedAt time.Time) error { // want lockLog:`^locks\(`
	return l.q.LockLogFile(ctx, tx, LockLogFileParams{TenantID: tenant, TaskID: taskID, InsertedAt: insertedAt})
}

// Append locks the task's log file, then upserts the task's events.
func (l *Log) Append(ctx context.Context, tx pgx.Tx, tenant string, task *Task, keys, children []string) error { // want Append:`^locks\(`
	if err := l.lockLog(ctx, tx, tenant, task.ID, task.InsertedAt); err != nil {
		return err
	}
	return l.q.UpsertEvents(ctx, tx, UpsertEventsParams{TenantID: tenant, TaskID: task.ID, InsertedAt: task.InsertedAt, Keys: keys, Children: children})
}

// AppendToParent locks the task's log file, then upserts events of its
// parent task: not under the parent's log file.
func (l *Log) AppendToParent(ctx context.Context, tx pgx.Tx, tenant string, task, parent *Task, keys, children []string) error { // want AppendToParent:`^locks\(`
	if err := l.lockLog(ctx, tx, tenant, task.ID, task.InsertedAt); err != nil {
		return err
	}
	return l.q.UpsertEvents(ctx, tx, UpsertEventsParams{TenantID: tenant, TaskID: parent.ID, InsertedAt: parent.InsertedAt, Keys: keys, Children: children}) // want `unordered multi-row lock: INSERT \.\.\. ON CONFLICT DO UPDATE takes rows of kg_task_events`
}
