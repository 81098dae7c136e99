package rowlocks

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// pruneBlocks locks old blocks in hash order.
func pruneBlocks(ctx context.Context, tx pgx.Tx, height int64) error {
	_, err := tx.Exec(ctx, "SELECT hash FROM blocks WHERE height < $1 ORDER BY hash FOR UPDATE", height)
	return err
}

// reorgBlocks locks them in the opposite direction: against pruneBlocks,
// two transactions meet in the middle and deadlock.
func reorgBlocks(ctx context.Context, tx pgx.Tx, height int64) error {
	_, err := tx.Exec(ctx, "SELECT hash FROM blocks WHERE height > $1 ORDER BY hash DESC FOR UPDATE", height) // want `row order mismatch on blocks: rowlocks.reorgBlocks locks its rows ORDER BY hash DESC, rowlocks.pruneBlocks locks them ORDER BY hash`
	return err
}

// pruneHeaders and indexHeaders lock headers in one order (one through an
// alias): no mismatch.
func pruneHeaders(ctx context.Context, tx pgx.Tx, height int64) error {
	_, err := tx.Exec(ctx, "SELECT hash FROM headers WHERE height < $1 ORDER BY hash FOR UPDATE", height)
	return err
}

func indexHeaders(ctx context.Context, tx pgx.Tx, heights []int64) error {
	_, err := tx.Exec(ctx, "SELECT h.hash FROM headers h WHERE h.height = ANY($1) ORDER BY h.hash FOR UPDATE", heights)
	return err
}

// readSettings and readSettingsByName share their rows: FOR SHARE does not
// conflict with FOR SHARE, whatever the order.
func readSettings(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT * FROM settings WHERE scope = ANY($1) ORDER BY id FOR SHARE", []string{"a"})
	return err
}

func readSettingsByName(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT * FROM settings WHERE scope = ANY($1) ORDER BY name FOR SHARE", []string{"a"})
	return err
}
