package refunds

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// seed locks the orders, then their customer: the other order from the
// orders package's tests, in another test binary.
func seed(ctx context.Context, t *testing.T, pool *pgxpool.Pool) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE orders SET refunded = true WHERE customer_id = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE customers SET refunded = true WHERE id = 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTotal(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "")
	if err != nil {
		t.Skip(err)
	}
	seed(ctx, t, pool)
	if _, err := (&Store{Pool: pool}).Total(ctx, 1); err != nil {
		t.Fatal(err)
	}
}
