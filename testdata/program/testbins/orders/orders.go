// Package orders keeps customers' orders.
package orders

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Store reads orders.
type Store struct{ Pool *pgxpool.Pool }

// Count counts a customer's orders.
func (s *Store) Count(ctx context.Context, customer int64) (n int, err error) {
	err = s.Pool.QueryRow(ctx, "SELECT count(*) FROM orders WHERE customer_id = $1", customer).Scan(&n)
	return n, err
}
