// Command app wires the repositories into the services.
package main

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/txctx/checkout"
	"program/txctx/orders"
	"program/txctx/payments"
	"program/txctx/refunds"
)

// locks combines both repositories for refunds.
type locks struct {
	orders   *orders.Repo
	payments *payments.Repo
}

func (l locks) LockOrder(ctx context.Context, id int64) error { return l.orders.LockOrder(ctx, id) }

func (l locks) LockPayment(ctx context.Context, orderID int64) error {
	return l.payments.LockPayment(ctx, orderID)
}

func main() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	o, p := &orders.Repo{Pool: pool}, &payments.Repo{Pool: pool}
	c := &checkout.Service{Pool: pool, Orders: o, Payments: p}
	r := &refunds.Service{Pool: pool, Locks: locks{o, p}}
	if err := c.Checkout(ctx, 1); err != nil {
		log.Print(err)
	}
	if err := r.Refund(ctx, 1); err != nil {
		log.Print(err)
	}
}
