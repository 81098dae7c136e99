package store // want package:"sql=true edges=12"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/sqlc/db"
)

// Store runs sqlc queries in transactions, the way sqlc tutorials do.
type Store struct {
	*db.Queries
	pool *pgxpool.Pool
}

// NewStore returns a store on pool.
func NewStore(pool *pgxpool.Pool) *Store { // want NewStore:`returns\(0\.pool=p0\(pool\)\)`
	return &Store{Queries: db.New(pool), pool: pool}
}

// execTx runs fn with queries bound to a new transaction and commits.
func (s *Store) execTx(ctx context.Context, fn func(*db.Queries) error) error { // want execTx:`invokes\(p2\(0\.db=L0\(transaction\)\)\)`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(db.New(tx)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Pay locks the transfer and then credits the account.
func (s *Store) Pay(ctx context.Context, transferID int64) error { // want Pay:`locks\(.*row:transfers FOR UPDATE@C0/L0.*row:accounts FOR NO KEY UPDATE@C0/L0`
	return s.execTx(ctx, func(q *db.Queries) error {
		t, err := q.GetTransferForUpdate(ctx, transferID)
		if err != nil {
			return err
		}
		return q.AddAccountBalance(ctx, db.AddAccountBalanceParams{ID: t.ToID, Amount: t.Amount})
	})
}

// Void locks the account and then the transfer.
func (s *Store) Void(ctx context.Context, accountID, transferID int64) error { // want Void:`locks\(.*row:accounts FOR UPDATE@C0/L0.*row:transfers FOR NO KEY UPDATE@C0/L0`
	return s.execTx(ctx, func(q *db.Queries) error {
		if _, err := q.GetAccountForUpdate(ctx, accountID); err != nil {
			return err
		}
		return q.MarkTransferDone(ctx, transferID) // want `(?s)lock-order inversion: rows of accounts and rows of transfers.*calls store\.Store\.execTx, which calls store\.Store\.Void\.func1`
	})
}

// Peek runs the queries on the pool, outside any transaction.
func (s *Store) Peek(ctx context.Context, accountID, transferID int64) error { // want Peek:`locks\(.*row:accounts FOR UPDATE@p0\.Queries\.db.*row:transfers FOR NO KEY UPDATE@p0\.Queries\.db`
	if _, err := s.GetAccountForUpdate(ctx, accountID); err != nil {
		return err
	}
	return s.MarkTransferDone(ctx, transferID)
}
