package app // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"corpus/iface/pgstore"
)

// Store is what the service needs from storage; pgstore implements it.
type Store interface {
	Claim(ctx context.Context, jobID int64) error
	Refund(ctx context.Context, accountID int64) error
	InTx(ctx context.Context, fn func(tx pgstore.Tx) error) error
}

// Service runs the business logic on a Store it was given.
type Service struct {
	store Store
}

// NewService returns a service on the Postgres store.
func NewService(s *pgstore.Store) *Service { return &Service{store: s} } // want NewService:`^returns\(0.store.pool=p0.pool\(pool\)\)$`

// Claim claims a job through the interface: the call runs pgstore's Claim.
func (s *Service) Claim(ctx context.Context, jobID int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE.*row:accounts FOR NO KEY UPDATE`
	return s.store.Claim(ctx, jobID)
}

// Refund refunds through the interface: pgstore's Refund.
func (s *Service) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE.*row:jobs FOR UPDATE`
	return s.store.Refund(ctx, accountID)
}

// Audit locks the audit row and then the account, inside a transaction the
// store's InTx helper opens around the callback.
func (s *Service) Audit(ctx context.Context, id int64) error { // want Audit:`locks\(.*row:audits FOR UPDATE.*row:accounts FOR UPDATE`
	return s.store.InTx(ctx, func(tx pgstore.Tx) error {
		if err := tx.Exec(ctx, "SELECT 1 FROM audits WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	})
}

// Reconcile locks the account, then the audit row: against Audit.
func (s *Service) Reconcile(ctx context.Context, id int64) error { // want Reconcile:`locks\(.*row:accounts FOR UPDATE.*row:audits FOR UPDATE`
	return s.store.InTx(ctx, func(tx pgstore.Tx) error {
		if err := tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return tx.Exec(ctx, "SELECT 1 FROM audits WHERE id = $1 FOR UPDATE", id) // want `lock-order inversion: rows of accounts and rows of audits are locked in opposite orders`
	})
}
