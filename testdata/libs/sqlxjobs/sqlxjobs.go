package sqlxjobs // want package:"sql=true edges=24"

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

// holdCredit and settleCredit rebind through sqlx.ExtContext, the interface
// a repository takes to run on the pool or a transaction: the query is
// still the constant.
func holdCredit(ctx context.Context, q sqlx.ExtContext, id int64) error {
	if _, err := q.ExecContext(ctx, q.Rebind("UPDATE credits SET held = true WHERE id = ?"), id); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, q.Rebind("UPDATE credit_log SET n = n + 1 WHERE id = ?"), id)
	return err
}

func settleCredit(ctx context.Context, q sqlx.ExtContext, id int64) error {
	if _, err := q.ExecContext(ctx, q.Rebind("UPDATE credit_log SET n = n - 1 WHERE id = ?"), id); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, q.Rebind("UPDATE credits SET held = false WHERE id = ?"), id)
	return err
}

// HoldAndSettle runs both in one transaction each.
func (s *Store) HoldAndSettle(ctx context.Context, id int64) error { // want HoldAndSettle:`locks\(table:credits ROW EXCLUSIVE@L0, row:credits FOR NO KEY UPDATE@L0, table:credit_log`
	tx := s.db.MustBeginTx(ctx, nil)
	defer tx.Rollback()
	if err := holdCredit(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}

// Settle runs settleCredit in its own transaction.
func (s *Store) Settle(ctx context.Context, id int64) error { // want Settle:`locks\(table:credit_log ROW EXCLUSIVE@L0, row:credit_log FOR NO KEY UPDATE@L0, table:credits`
	tx := s.db.MustBeginTx(ctx, nil)
	defer tx.Rollback()
	if err := settleCredit(ctx, tx, id); err != nil { // want `(?s)lock-order inversion: rows of credit_log and rows of credits are locked in opposite orders.*calls sqlxjobs.settleCredit\n +sqlxjobs/sqlxjobs.go:\d+:\d+: UPDATE in a transaction \(in sqlxjobs.settleCredit\)`
		return err
	}
	return tx.Commit()
}
