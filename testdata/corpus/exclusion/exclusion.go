package exclusion // want package:"sql=true edges=55"

// Paths that hold, before their pair, locks that conflict with each other
// cannot deadlock on the pair: PostgreSQL makes one wait for the other
// before it takes anything of the pair (internal/pgtruth
// TestExclusionSerialises proves it on the server).

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Purge empties the log (ACCESS EXCLUSIVE on x_log) and then takes x_a
// before x_b.
func Purge(ctx context.Context, tx pgx.Tx) error { // want Purge:`^locks\(table:x_log ACCESS EXCLUSIVE@p1, table:x_a ROW EXCLUSIVE@p1, row:x_a FOR NO KEY UPDATE@p1, table:x_b ROW EXCLUSIVE@p1, row:x_b FOR NO KEY UPDATE@p1\)`
	if _, err := tx.Exec(ctx, "TRUNCATE x_log"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE x_a SET v = 0 WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE x_b SET v = 0 WHERE id = $1", 1)
	return err
}

// Claim locks a log row (ROW SHARE on x_log, which TRUNCATE's ACCESS
// EXCLUSIVE excludes) and then inverts x_a and x_b against Purge: the two
// never hold their first locks at once, so nothing is reported.
func Claim(ctx context.Context, tx pgx.Tx, id int64) error { // want Claim:`^locks\(table:x_log ROW SHARE@p1, row:x_log FOR UPDATE@p1, `
	if _, err := tx.Exec(ctx, "SELECT id FROM x_log WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE x_b SET v = v + 1 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE x_a SET v = v + 1 WHERE id = $1", id)
	return err
}

// Audit reads the log (ACCESS SHARE, which TRUNCATE excludes too) before
// the same inversion: silent as well.
func Audit(ctx context.Context, tx pgx.Tx, id int64) error { // want Audit:`^locks\(table:x_log ACCESS SHARE@p1, `
	if _, err := tx.Exec(ctx, "SELECT count(*) FROM x_log"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE x_b SET v = v + 2 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE x_a SET v = v + 2 WHERE id = $1", id)
	return err
}

// Sweep is Purge on other tables.
func Sweep(ctx context.Context, tx pgx.Tx) error { // want Sweep:`^locks\(table:y_log ACCESS EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "TRUNCATE y_log"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE y_a SET v = 0 WHERE id = $1", 1); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE y_b SET v = 0 WHERE id = $1", 1) // want `lock-order inversion: rows of y_a and rows of y_b`
	return err
}

// Rotate truncates the log only after its pair: during the inversion it
// holds nothing that Sweep's TRUNCATE excludes, so the two deadlock.
func Rotate(ctx context.Context, tx pgx.Tx, id int64) error { // want Rotate:`^locks\(table:y_b ROW EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE y_b SET v = v + 3 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE y_a SET v = v + 3 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "TRUNCATE y_log")
	return err
}
