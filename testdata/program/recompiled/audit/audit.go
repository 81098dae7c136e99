// Package audit records what happened, and credits goodwill; the test
// edits it. Nothing imports it, and it imports accounts, whose types it
// shares with the packages that pass it pgx's.
package audit

import (
	"context"

	"github.com/jackc/pgx/v5"

	"program/recompiled/accounts"
)

// Goodwill credits an account and records it.
func Goodwill(ctx context.Context, tx pgx.Tx, id accounts.ID) error {
	if err := accounts.Credit(ctx, tx, id, 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "INSERT INTO audit_log (what) VALUES ('goodwill')")
	return err
}
