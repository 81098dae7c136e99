package fixed // want package:"sql=true edges=12"

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Store keeps jobs and accounts with sqlx.
type Store struct {
	db *sqlx.DB
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, id, accountID int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE.*row:accounts FOR NO KEY UPDATE`
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.QueryxContext(ctx, "SELECT * FROM jobs WHERE id = ? FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", accountID); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund locks the jobs first too, then credits the account.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE.*row:accounts FOR NO KEY UPDATE`
	tx := s.db.MustBegin()
	defer tx.Rollback()
	if err := lockJobs(ctx, tx, accountID); err != nil {
		return err
	}
	tx.MustExecContext(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = :id", accountID)
	return tx.Commit()
}

// Selecter is the part of *sqlx.DB and *sqlx.Tx the helpers need.
type Selecter interface {
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// lockJobs locks an account's jobs on the caller's handle.
func lockJobs(ctx context.Context, db Selecter, accountID int64) error {
	var ids []int64
	return db.SelectContext(ctx, &ids, "SELECT id FROM jobs WHERE account_id = ? FOR UPDATE", accountID)
}
