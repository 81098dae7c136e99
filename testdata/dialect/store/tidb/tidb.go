// want package:"sql=true edges=0"

// Package tidb runs MySQL-dialect SQL on a handle it is given: the
// configuration's dialects: entry says so, detection cannot.
package tidb

import (
	"context"
	"database/sql"
)

// Move locks the source shard, then the target.
func Move(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE shards SET moving = 1 WHERE id = ?", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE placements SET moving = 1 WHERE id = ?", id)
	return err
}

// Place locks the target, then the source shard.
func Place(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE placements SET moving = 0 WHERE id = ?", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE shards SET moving = 0 WHERE id = ?", id)
	return err
}
