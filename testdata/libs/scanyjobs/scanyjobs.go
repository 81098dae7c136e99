package scanyjobs // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/georgysavva/scany/v2/pgxscan"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Job is a row of jobs.
type Job struct {
	ID        int64
	AccountID int64
}

// Store keeps jobs and accounts with pgx and scany.
type Store struct {
	pool *pgxpool.Pool
}

// Claim locks the job (scanned by pgxscan.Get), then charges its account.
func (s *Store) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var j Job
		if err := pgxscan.Get(ctx, tx, &j, "SELECT id, account_id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", j.AccountID)
		return err
	})
}

// Refund credits the account, then locks its jobs with pgxscan.Select: the
// opposite order.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:jobs FOR UPDATE@L0`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", accountID); err != nil {
			return err
		}
		var jobs []Job
		return pgxscan.Select(ctx, tx, &jobs, "SELECT id, account_id FROM jobs WHERE account_id = $1 FOR UPDATE", accountID) // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
	})
}

// LockMany locks the caller's jobs in no defined order.
func (s *Store) LockMany(ctx context.Context, ids []int64) error { // want LockMany:`locks\(.*row:jobs FOR UPDATE@L0`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var jobs []Job
		return pgxscan.Select(ctx, tx, &jobs, "SELECT id, account_id FROM jobs WHERE id = ANY($1) FOR UPDATE", ids) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of jobs`
	})
}
