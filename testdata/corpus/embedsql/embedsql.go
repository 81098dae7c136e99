package embedsql // want package:"sql=true edges=[0-9]+"

import (
	"context"
	_ "embed" // the queries live in .sql files next to this one

	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	// lockJob is read from lock_job.sql at build time.
	//go:embed lock_job.sql
	lockJob string

	//go:embed charge_account.sql
	chargeAccount string
)

// Store keeps jobs and accounts.
type Store struct {
	pool *pgxpool.Pool
}

// Claim locks the job, then charges the account, with the embedded queries.
func (s *Store) Claim(ctx context.Context, id, accountID int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, lockJob, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, chargeAccount, accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Refund charges the account first, then locks the job: the opposite order.
func (s *Store) Refund(ctx context.Context, id, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:jobs FOR UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, chargeAccount, accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, lockJob, id); err != nil { // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}
