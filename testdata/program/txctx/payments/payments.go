// Package payments is the payments repository.
package payments

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/txctx/db"
)

// Repo locks payments on the context's transaction.
type Repo struct{ Pool *pgxpool.Pool }

// LockPayment locks the payment of an order.
func (r *Repo) LockPayment(ctx context.Context, orderID int64) error {
	_, err := db.Conn(ctx, r.Pool).Exec(ctx, "UPDATE payments SET state = 'locked' WHERE order_id = $1", orderID)
	return err
}
