package orders

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// seed locks the customer, then its orders: this package's tests run in a
// test binary (and, as Go's database tests are written, a database) of
// their own.
func seed(ctx context.Context, t *testing.T, pool *pgxpool.Pool) {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE customers SET seeded = true WHERE id = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE orders SET seeded = true WHERE customer_id = 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCount(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "")
	if err != nil {
		t.Skip(err)
	}
	seed(ctx, t, pool)
	if _, err := (&Store{Pool: pool}).Count(ctx, 1); err != nil {
		t.Fatal(err)
	}
}
