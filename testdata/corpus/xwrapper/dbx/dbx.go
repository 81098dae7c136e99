package dbx // want package:"sql=true edges=0"

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5"
)

// Exec logs and runs a statement in the caller's transaction.
func Exec(ctx context.Context, tx pgx.Tx, query string, args ...any) error { // want Exec:`^sinks\(2@p1\)$`
	log.Printf("exec: %s", query)
	if _, err := tx.Exec(ctx, query, args...); err != nil {
		return fmt.Errorf("exec %q: %w", query, err)
	}
	return nil
}
