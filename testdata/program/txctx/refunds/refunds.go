// Package refunds refunds orders.
package refunds

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/txctx/db"
)

// Locker locks what a refund changes.
type Locker interface {
	LockOrder(ctx context.Context, id int64) error
	LockPayment(ctx context.Context, orderID int64) error
}

// Service refunds orders.
type Service struct {
	Pool  *pgxpool.Pool
	Locks Locker
}

// Refund locks the payment, then the order: against checkout.
func (s *Service) Refund(ctx context.Context, id int64) error {
	return db.InTx(ctx, s.Pool, func(ctx context.Context) error { // want `lock-order inversion: rows of orders and rows of payments are locked in opposite orders`
		if err := s.Locks.LockPayment(ctx, id); err != nil {
			return err
		}
		return s.Locks.LockOrder(ctx, id)
	})
}
