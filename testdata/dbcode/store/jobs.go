// Package store keeps part of its locking in the database: a PL/pgSQL
// function and a trigger take row locks that no Go statement names.
package store

import (
	"context"
	"database/sql"
)

// ClaimJob runs claim_job, which locks the job's row, then the totals row.
func ClaimJob(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, "SELECT claim_job($1)", id)
	return err
}
