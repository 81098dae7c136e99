package fixed // want package:"sql=true edges=[0-9]+"

// The twin of sqjobs/splice with Finish fixed: it locks the run (through
// the same raw fragments) before the job, as Start does.

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

// psql renders $n placeholders.
var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// Start locks the run in a sub-select of the WHERE fragment, then updates
// the job.
func Start(ctx context.Context, db *sql.DB, runID int64) error { // want Start:`locks\(.*row:runs FOR UPDATE@L0.*row:jobs FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var jobID int64
	err = psql.Select("id").From("jobs").Where(sq.Expr("id IN (SELECT job_id FROM runs WHERE id = ? FOR UPDATE)", runID)).RunWith(tx).QueryRowContext(ctx).Scan(&jobID)
	if err != nil {
		return err
	}
	_, err = psql.Update("jobs").Set("status", "running").Where(sq.Eq{"id": jobID}).RunWith(tx).ExecContext(ctx)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Finish locks the run first too, then updates the job.
func Finish(ctx context.Context, db *sql.DB, jobID int64) error { // want Finish:`locks\(.*row:runs FOR UPDATE@L0.*row:jobs FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := psql.Select("id").From("runs").Where(sq.Eq{"job_id": jobID}).SuffixExpr(sq.Expr("FOR UPDATE")).RunWith(tx).QueryContext(ctx)
	if err != nil {
		return err
	}
	defer rows.Close()
	_, err = psql.Update("jobs").Set("status", "done").Where(sq.Eq{"id": jobID}).RunWith(tx).ExecContext(ctx)
	if err != nil {
		return err
	}
	return tx.Commit()
}
