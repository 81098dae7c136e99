// Package refunds refunds orders.
package refunds

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Store reads refunds.
type Store struct{ Pool *pgxpool.Pool }

// Total sums a customer's refunds.
func (s *Store) Total(ctx context.Context, customer int64) (n int64, err error) {
	err = s.Pool.QueryRow(ctx, "SELECT coalesce(sum(amount), 0) FROM refunds WHERE customer_id = $1", customer).Scan(&n)
	return n, err
}
