package retry

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

func TestDo(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "")
	if err != nil {
		t.Skip(err)
	}
	err = Do(func() error {
		_, err := pool.Exec(ctx, "UPDATE counters SET n = n + 1 WHERE id = 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
