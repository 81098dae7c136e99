// Package orders is the orders repository.
package orders

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/txctx/db"
)

// Repo locks orders on the context's transaction.
type Repo struct{ Pool *pgxpool.Pool }

// LockOrder locks one order.
func (r *Repo) LockOrder(ctx context.Context, id int64) error {
	_, err := db.Conn(ctx, r.Pool).Exec(ctx, "SELECT 1 FROM orders WHERE id = $1 FOR UPDATE", id)
	return err
}
