package sqlxjobs // want package:"sql=true edges=12"

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Job is a row of jobs.
type Job struct {
	ID        int64 `db:"id"`
	AccountID int64 `db:"account_id"`
}

// Store keeps jobs and accounts with sqlx.
type Store struct {
	db *sqlx.DB
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE.*row:accounts FOR NO KEY UPDATE`
	tx, err := s.db.Beginx()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var j Job
	if err := tx.GetContext(ctx, &j, tx.Rebind("SELECT * FROM jobs WHERE id = ? FOR UPDATE"), id); err != nil {
		return err
	}
	tx.MustExec("UPDATE accounts SET balance = balance - 1 WHERE id = ?", j.AccountID)
	return tx.Commit()
}

// Refund credits the account, then locks its jobs: the opposite order.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE.*row:jobs FOR UPDATE`
	tx := s.db.MustBeginTx(ctx, nil)
	defer tx.Rollback()
	if _, err := tx.NamedExecContext(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = :id", map[string]any{"id": accountID}); err != nil {
		return err
	}
	var ids []int64
	if err := tx.Select(&ids, "SELECT id FROM jobs WHERE account_id = ? FOR UPDATE", accountID); err != nil { // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Count runs on the pool in autocommit mode: it holds nothing.
func (s *Store) Count(ctx context.Context) (int, error) { // want Count:`locks\(table:jobs ACCESS SHARE@p0.db\)`
	var n int
	err := sqlx.GetContext(ctx, s.db, &n, "SELECT count(*) FROM jobs")
	return n, err
}
