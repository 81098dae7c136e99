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

// LockLogFile locks the log-file row of a task and reads its branch
// points, the way sqlc writes a :many query: the rows are closed by a
// deferred call.
func (q *Queries) LockLogFile(ctx context.Context, db DBTX, arg LockLogFileParams) ([]int64, error) { // want LockLogFile:`^locks\(`
	rows, err := db.Query(ctx, `WITH locked AS (
    SELECT durable_task_id FROM kg_log_files
    WHERE durable_task_id = $1 AND durable_task_inserted_at = $2 AND tenant_id = $3 FOR UPDATE)
SELECT bp.id FROM locked l LEFT JOIN kg_branch_points bp ON bp.durable_task_id = l.durable_task_id`,
		arg.TaskID, arg.InsertedAt, arg.TenantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var items []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		items = append(items, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return items, nil
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
	// last is the last task ingested.
	last *Task
}

// lockLog locks the task's log file.
func (l *Log) lockLog(ctx context.Context, tx DBTX, tenant string, taskID int64, insertedAt time.Time) error { // want lockLog:`^locks\(`
	_, err := l.q.LockLogFile(ctx, tx, LockLogFileParams{TenantID: tenant, TaskID: taskID, InsertedAt: insertedAt})
	return err
}

// BaseOpts name the task an ingest is for.
type BaseOpts struct {
	TenantID string
	Task     *Task
}

// IngestOpts are an ingest's options, the task's among them.
type IngestOpts struct {
	BaseOpts
	Keys, Children []string
}

// Ingest locks the task's log file, then upserts the task's events: the
// task read through the embedded options, as a local a deferred closure
// captures.
func (l *Log) Ingest(ctx context.Context, tx pgx.Tx, opts IngestOpts) error { // want Ingest:`^locks\(`
	task := opts.Task
	defer func() { l.last = task }()
	if err := l.lockLog(ctx, tx, opts.TenantID, task.ID, task.InsertedAt); err != nil {
		return err
	}
	return l.q.UpsertEvents(ctx, tx, UpsertEventsParams{TenantID: opts.TenantID, TaskID: task.ID, InsertedAt: task.InsertedAt, Keys: opts.Keys, Children: opts.Children})
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
