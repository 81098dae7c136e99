//go:build fixed

package store

import (
	"context"
	"database/sql"
)

// ResetTotals, fixed: the job's row first, as claim_job takes them.
func ResetTotals(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'queued' WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE job_totals SET claimed = 0 WHERE id = 1")
	return err
}
