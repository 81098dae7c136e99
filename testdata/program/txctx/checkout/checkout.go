// Package checkout declares the repositories it needs next to the service
// (consumer-side interfaces); it imports neither implementation.
package checkout

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/txctx/db"
)

// Orders is what checkout needs of the orders repository.
type Orders interface {
	LockOrder(ctx context.Context, id int64) error
}

// Payments is what checkout needs of the payments repository.
type Payments interface {
	LockPayment(ctx context.Context, orderID int64) error
}

// Service checks orders out.
type Service struct {
	Pool     *pgxpool.Pool
	Orders   Orders
	Payments Payments
}

// Checkout locks the order, then its payment, in one transaction, retried
// by a helper that only passes the context along.
func (s *Service) Checkout(ctx context.Context, id int64) error {
	return db.InTx(ctx, s.Pool, func(ctx context.Context) error {
		return db.Retry(ctx, func(ctx context.Context) error {
			if err := s.Orders.LockOrder(ctx, id); err != nil {
				return err
			}
			return s.Payments.LockPayment(ctx, id)
		})
	})
}

// Audit takes the payment, then the order, with no transaction in the
// context: each statement commits on its own, nothing is held between
// them.
func (s *Service) Audit(ctx context.Context, id int64) error {
	if err := s.Payments.LockPayment(ctx, id); err != nil {
		return err
	}
	return s.Orders.LockOrder(ctx, id)
}

// Fulfil locks the order, then its payment, like Checkout.
func (s *Service) Fulfil(ctx context.Context, id int64) error {
	return db.InTx(ctx, s.Pool, func(ctx context.Context) error {
		if err := s.Orders.LockOrder(ctx, id); err != nil {
			return err
		}
		return s.Payments.LockPayment(ctx, id)
	})
}
