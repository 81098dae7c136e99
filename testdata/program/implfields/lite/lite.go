// Package lite is a back end that picks its connection once, in its
// constructor: a field set to the pool, then to the transaction when there
// is one.
package lite

import (
	"context"
	"database/sql"

	"program/implfields/plugin"
)

type db struct {
	pool *sql.DB
	tx   *sql.Tx
	conn plugin.Conn
}

func newDB(pool *sql.DB, tx *sql.Tx) *db {
	d := &db{pool: pool, tx: tx}
	d.conn = pool
	if tx != nil {
		d.conn = tx
	}
	return d
}

// New returns the back end over pool.
func New(pool *sql.DB) plugin.DB { return newDB(pool, nil) }

func (d *db) BeginTx(ctx context.Context) (plugin.Tx, error) {
	tx, err := d.pool.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return newDB(d.pool, tx), nil
}

func (d *db) Commit() error   { return d.tx.Commit() }
func (d *db) Rollback() error { return d.tx.Rollback() }

func (d *db) LockRun(ctx context.Context, run string) error {
	_, err := d.conn.ExecContext(ctx, "SELECT run_id FROM executions WHERE run_id = $1 FOR UPDATE", run)
	return err
}

func (d *db) DeleteActivities(ctx context.Context, run string, ids []int64) error {
	_, err := d.conn.ExecContext(ctx, "DELETE FROM activity_maps WHERE run_id = $1 AND schedule_id = ANY($2)", run, ids)
	return err
}

func (d *db) DeleteChildren(ctx context.Context, run string, ids []int64) error {
	_, err := d.conn.ExecContext(ctx, "DELETE FROM child_maps WHERE run_id = $1 AND initiated_id = ANY($2)", run, ids)
	return err
}

func (d *db) DeleteAllActivities(ctx context.Context, run string) error {
	_, err := d.conn.ExecContext(ctx, "DELETE FROM activity_maps WHERE run_id = $1", run)
	return err
}

func (d *db) DeleteAllChildren(ctx context.Context, run string) error {
	_, err := d.conn.ExecContext(ctx, "DELETE FROM child_maps WHERE run_id = $1", run)
	return err
}
