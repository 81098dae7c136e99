package migrations // want package:"sql=true edges=7"

// A migration tool runs this package one step at a time: the row-order
// rules, which compare two executions of the same code, stay silent here.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// backfill locks the rows of a map loop in one transaction.
func backfill(ctx context.Context, tx pgx.Tx, owners map[int64]string) error {
	for id, owner := range owners {
		if _, err := tx.Exec(ctx, "UPDATE teams SET owner = $2 WHERE id = $1", id, owner); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, "DELETE FROM sessions WHERE id = ANY($1)", []int64{1, 2})
	return err
}

// renameTeams reads the table in SHARE mode and then rewrites it: a lock
// upgrade, harmless in a migration, which runs once.
func renameTeams(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "LOCK TABLE teams IN SHARE MODE"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "ALTER TABLE teams RENAME COLUMN owner TO owner_name")
	return err
}
