package books // want package:"sql=true edges=9"

import (
	"context"
	"database/sql"
)

// post follows the declared order: accounts, then ledger.
func post(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO ledger (account_id) VALUES (1) ON CONFLICT (account_id) DO UPDATE SET n = ledger.n + 1")
	return err
}

// tenantLast takes the advisory key after the rows: as declared.
func tenantLast(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = 1 WHERE id = 2"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7)")
	return err
}
