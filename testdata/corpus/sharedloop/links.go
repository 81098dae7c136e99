package sharedloop // want package:"sql=true edges=4"

// The rules that compare two executions of the same code (a loop's order,
// one statement's set of rows) need a mode that conflicts with itself: two
// transactions that take the same rows FOR KEY SHARE or FOR SHARE, in any
// order, never wait for each other.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ShareTargets takes each target FOR KEY SHARE, in the caller's order.
func ShareTargets(ctx context.Context, tx pgx.Tx, ids []int64) error { // want ShareTargets:`^locks\(table:sl_targets ROW SHARE@p1, row:sl_targets FOR KEY SHARE@p1\) holds\[0 1\]$`
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "SELECT id FROM sl_targets WHERE id = $1 FOR KEY SHARE", id); err != nil {
			return err
		}
	}
	return nil
}

// ReadTargets takes a set of targets FOR SHARE in one statement.
func ReadTargets(ctx context.Context, tx pgx.Tx, ids []int64) error { // want ReadTargets:`^locks\(table:sl_targets ROW SHARE@p1, row:sl_targets FOR SHARE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "SELECT id FROM sl_targets WHERE id = ANY($1) FOR SHARE", ids)
	return err
}

// ClaimTargets takes each target FOR UPDATE, in the caller's order: two
// calls with the same targets in two orders deadlock.
func ClaimTargets(ctx context.Context, tx pgx.Tx, ids []int64) error { // want ClaimTargets:`^locks\(table:sl_targets ROW SHARE@p1, row:sl_targets FOR UPDATE@p1\) holds\[0 1\]$`
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "SELECT id FROM sl_targets WHERE id = $1 FOR UPDATE", id); err != nil { // want `lock order set by a loop: rows of sl_targets \(FOR UPDATE\)`
			return err
		}
	}
	return nil
}

// LockTargets takes a set of targets FOR UPDATE in one statement.
func LockTargets(ctx context.Context, tx pgx.Tx, ids []int64) error { // want LockTargets:`^locks\(table:sl_targets ROW SHARE@p1, row:sl_targets FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "SELECT id FROM sl_targets WHERE id = ANY($1) FOR UPDATE", ids) // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of sl_targets \(FOR UPDATE\)`
	return err
}
