package ledger

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Two parallel tests of one test binary share its database: their opposite
// orders can deadlock the test run.
func TestPostEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "")
	if err != nil {
		t.Skip(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE entries SET posted = true WHERE account_id = 1") // want `lock-order inversion: rows of accounts and rows of entries are locked in opposite orders`
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReverseEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "")
	if err != nil {
		t.Skip(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE entries SET posted = false WHERE account_id = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
