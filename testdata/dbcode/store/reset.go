//go:build !fixed

package store

import (
	"context"
	"database/sql"
)

// ResetTotals locks the totals row, then the job's: the opposite order of
// claim_job, a deadlock with ClaimJob.
func ResetTotals(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE job_totals SET claimed = 0 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'queued' WHERE id = $1", id)
	return err
}
