package pgstore // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is the Postgres implementation of the service's store.
type Store struct {
	pool *pgxpool.Pool
}

// Tx wraps a transaction for callbacks.
type Tx struct {
	tx pgx.Tx
}

// Exec runs a statement in the transaction.
func (t Tx) Exec(ctx context.Context, sql string, args ...any) error { // want Exec:`sinks`
	_, err := t.tx.Exec(ctx, sql, args...)
	return err
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, jobID int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE.*row:accounts FOR NO KEY UPDATE`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var accountID int64
	if err := tx.QueryRow(ctx, "SELECT account_id FROM jobs WHERE id = $1 FOR UPDATE", jobID).Scan(&accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Refund credits the account, then locks its jobs: the opposite order,
// reported here, where both orders are seen.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE.*row:jobs FOR UPDATE`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM jobs WHERE account_id = $1 FOR UPDATE", accountID); err != nil { // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// InTx runs fn in a transaction it opens and commits.
func (s *Store) InTx(ctx context.Context, fn func(tx Tx) error) error { // want InTx:`invokes`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(Tx{tx: tx}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
