package service // want package:"sql=true edges=12"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/sqlc/db"
)

// Transfers runs money transfers with sqlc queries.
type Transfers struct {
	pool    *pgxpool.Pool
	queries *db.Queries
}

// NewTransfers returns a service on pool.
func NewTransfers(pool *pgxpool.Pool) *Transfers { // want NewTransfers:`returns\(0\.pool=p0\(pool\)\)`
	return &Transfers{pool: pool, queries: db.New(pool)}
}

// Execute locks the transfer, then credits the account.
func (s *Transfers) Execute(ctx context.Context, transferID int64) error { // want Execute:`locks\(.*row:transfers FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	q := s.queries.WithTx(tx)
	t, err := q.GetTransferForUpdate(ctx, transferID)
	if err != nil {
		return err
	}
	if err := q.AddAccountBalance(ctx, db.AddAccountBalanceParams{ID: t.ToID, Amount: t.Amount}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Cancel locks the account first, then the transfer.
func (s *Transfers) Cancel(ctx context.Context, accountID, transferID int64) error { // want Cancel:`locks\(.*row:accounts FOR UPDATE@L0.*row:transfers FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	q := s.queries.WithTx(tx)
	if _, err := q.GetAccountForUpdate(ctx, accountID); err != nil {
		return err
	}
	if err := q.MarkTransferDone(ctx, transferID); err != nil { // want `lock-order inversion: rows of accounts and rows of transfers are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Audit runs the same queries in Cancel's order without a transaction:
// every statement commits on its own, so it takes no part in a cycle.
func Audit(ctx context.Context, pool *pgxpool.Pool, accountID, transferID int64) error { // want Audit:`locks\(.*row:transfers FOR UPDATE@F.*row:accounts FOR UPDATE@F`
	q := db.New(pool)
	if _, err := q.GetTransferForUpdate(ctx, transferID); err != nil {
		return err
	}
	_, err := q.GetAccountForUpdate(ctx, accountID)
	return err
}
