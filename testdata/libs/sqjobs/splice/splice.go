package splice // want package:"sql=true edges=[0-9]+"

// Raw fragments of squirrel builders: a sub-select that locks rows inside
// sq.Expr, a locking clause given as SuffixExpr, and a CTE given as Prefix.
// Start locks the run through a fragment, then the job; Finish locks the
// job, then the run: an inversion seen only through the fragments.

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

// psql renders $n placeholders.
var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// lockRun is the fragment that locks a run's row, built from constants.
const lockRun = "id IN (SELECT job_id FROM runs WHERE id = ? " + "FOR UPDATE)"

// Start locks the run (in a sub-select of the WHERE fragment), then
// updates the job.
func Start(ctx context.Context, db *sql.DB, runID int64) error { // want Start:`locks\(.*row:runs FOR UPDATE@L0.*row:jobs FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var jobID int64
	err = psql.Select("id").From("jobs").Where(sq.Expr(lockRun, runID)).RunWith(tx).QueryRowContext(ctx).Scan(&jobID)
	if err != nil {
		return err
	}
	_, err = psql.Update("jobs").Set("status", "running").Where(sq.Eq{"id": jobID}).RunWith(tx).ExecContext(ctx)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Finish updates the job, then locks its run with a locking clause given
// as an expression: the opposite order.
func Finish(ctx context.Context, db *sql.DB, jobID int64) error { // want Finish:`locks\(.*row:jobs FOR NO KEY UPDATE@L0.*row:runs FOR UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = psql.Update("jobs").Set("status", "done").Where(sq.Eq{"id": jobID}).RunWith(tx).ExecContext(ctx)
	if err != nil {
		return err
	}
	rows, err := psql.Select("id").From("runs").Where(sq.Eq{"job_id": jobID}).SuffixExpr(sq.Expr("FOR UPDATE")).RunWith(tx).QueryContext(ctx) // want `lock-order inversion: rows of jobs and rows of runs are locked in opposite orders`
	if err != nil {
		return err
	}
	defer rows.Close()
	return tx.Commit()
}

// Audit reads the run in the same kind of fragment, without locking it,
// then updates the job: a near miss of Start, no lock on runs.
func Audit(ctx context.Context, db *sql.DB, runID int64) error { // want Audit:`locks\(table:jobs ACCESS SHARE@L0, table:runs ACCESS SHARE@L0, table:jobs ROW EXCLUSIVE@L0, row:jobs FOR NO KEY UPDATE@L0\)`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var jobID int64
	err = psql.Select("id").From("jobs").Where(sq.Expr("id IN (SELECT job_id FROM runs WHERE id = ?)", runID)).RunWith(tx).QueryRowContext(ctx).Scan(&jobID)
	if err != nil {
		return err
	}
	_, err = psql.Update("jobs").Set("audited", true).Where(sq.Eq{"id": jobID}).RunWith(tx).ExecContext(ctx)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Claim locks the run in a CTE given as the statement's prefix, then
// selects the job: the same order as Start.
func Claim(ctx context.Context, db *sql.DB, runID int64) error { // want Claim:`locks\(.*row:runs FOR UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args, err := psql.Select("id").Prefix("WITH r AS (SELECT job_id FROM runs WHERE id = ? FOR UPDATE)", runID).
		From("jobs").Where("id IN (SELECT job_id FROM r)").ToSql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	return tx.Commit()
}
