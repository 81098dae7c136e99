package ledger // want package:"sql=true edges=3"

import (
	"context"
	"database/sql"
)

// reverse locks a ledger row, then an account: against the order, though
// tenantFirst takes the advisory key first: against the order.
func tenantFirst(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7)"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE ledger SET n = 2 WHERE account_id = 2") // want `declared lock order violated: ledger.tenantFirst requests rows of ledger .* while holding advisory lock \(7\)`
	return err
}

// readThenWrite reads the ledger, then writes an account: a plain read
