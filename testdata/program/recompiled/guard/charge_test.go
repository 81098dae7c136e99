package guard_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/recompiled/accounts"
	"program/recompiled/billing"
)

func TestCharge(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "")
	if err != nil {
		t.Skip(err)
	}
	if err := billing.Charge(ctx, pool, accounts.ID(1), 10); err != nil {
		t.Skip(err)
	}
}
