package ctxtx // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

type txKey struct{}

// WithTx returns a context that carries tx.
func WithTx(ctx context.Context, tx pgx.Tx) context.Context { // want WithTx:`^returns\(0.ctx\$tx=p1\(transaction\)\)$`
	return context.WithValue(ctx, txKey{}, tx)
}

// querier is what the repository methods run on.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Store keeps jobs and accounts; its methods join the transaction the
// context carries, if any.
type Store struct {
	pool *pgxpool.Pool
}

// q returns the context's transaction, or the pool.
func (s *Store) q(ctx context.Context) querier { // want q:`^returns\(0=p1.ctx\$tx\(handle\)\)$`
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return s.pool
}

// InTx runs fn with a context carrying a transaction it opens and commits.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context) error) error { // want InTx:`invokes\(p2\(0.ctx\$tx=L0\(transaction\)\)\)`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(WithTx(ctx, tx)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// LockJob locks a job on the context's transaction.
func (s *Store) LockJob(ctx context.Context, id int64) error { // want LockJob:`locks\(.*row:jobs FOR UPDATE@p1.ctx\$tx\)`
	_, err := s.q(ctx).Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id)
	return err
}

// LockAccount locks an account on the context's transaction.
func (s *Store) LockAccount(ctx context.Context, id int64) error { // want LockAccount:`locks\(.*row:accounts FOR UPDATE@p1.ctx\$tx\)`
	_, err := s.q(ctx).Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// Claim locks the job, then the account, in one transaction.
func (s *Store) Claim(ctx context.Context, jobID, accountID int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@C\d+/L0.*row:accounts FOR UPDATE@C\d+/L0`
	return s.InTx(ctx, func(ctx context.Context) error {
		if err := s.LockJob(ctx, jobID); err != nil {
			return err
		}
		return s.LockAccount(ctx, accountID)
	})
}

// Refund locks the account, then the job: the opposite order.
func (s *Store) Refund(ctx context.Context, jobID, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR UPDATE@C\d+/L0.*row:jobs FOR UPDATE@C\d+/L0`
	return s.InTx(ctx, func(ctx context.Context) error {
		if err := s.LockAccount(ctx, accountID); err != nil {
			return err
		}
		return s.LockJob(ctx, jobID) // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
	})
}
