package store // want package:"sql=true edges=9"

// The package runs its statements on the transactions its callers lend
// it: whether several rows locked in no defined order can deadlock depends
// on what the lending transaction locked first, which only the caller sees.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Filter selects some items of one order.
type Filter struct {
	OrderID int64
	ItemIDs []int64
}

// DeleteItems deletes items of one order on the caller's transaction. No
// code in this package lends it one: a per-package driver reports it here;
// the whole-program command reports it where svc's transactions call it
// (or finds it gated there).
func DeleteItems(ctx context.Context, tx pgx.Tx, f Filter) error { // want DeleteItems:`^locks\(table:lr_items ROW EXCLUSIVE@p1, row:lr_items FOR UPDATE@p1\) holds`
	_, err := tx.Exec(ctx, "DELETE FROM lr_items WHERE order_id = $1 AND id = ANY($2)", f.OrderID, f.ItemIDs) // want `unordered multi-row lock: DELETE takes rows of lr_items`
	return err
}

// deleteLines is judged at each of its calls, never on its own.
func deleteLines(ctx context.Context, tx pgx.Tx, orderID int64, ids []int64) error {
	_, err := tx.Exec(ctx, "DELETE FROM lr_lines WHERE order_id = $1 AND id = ANY($2)", orderID, ids)
	return err
}

// PruneLines locks the order first: two executions that delete lines of
// one order run one after the other.
func PruneLines(ctx context.Context, db *pgx.Conn, orderID int64, ids []int64) error { // want PruneLines:`^locks\(table:lr_orders ROW SHARE@L0, row:lr_orders FOR UPDATE@L0, table:lr_lines`
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT id FROM lr_orders WHERE id = $1 FOR UPDATE", orderID); err != nil {
			return err
		}
		return deleteLines(ctx, tx, orderID, ids)
	})
}

// SweepLines does not: reported at its call.
func SweepLines(ctx context.Context, db *pgx.Conn, orderID int64, ids []int64) error { // want SweepLines:`^locks\(table:lr_lines ROW EXCLUSIVE@L0, row:lr_lines FOR UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		return deleteLines(ctx, tx, orderID, ids) // want `unordered multi-row lock: DELETE takes rows of lr_lines`
	})
}

// MergeAccounts moves a balance between two accounts in the order its
// caller passes them, on the caller's transaction. svc's only call holds
// both rows already: the whole-program command withdraws the report that
// a per-package driver makes here.
func MergeAccounts(ctx context.Context, tx pgx.Tx, from, into int64) error { // want MergeAccounts:`^locks\(table:lr_accounts ROW EXCLUSIVE@p1, row:lr_accounts FOR NO KEY UPDATE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE lr_accounts SET balance = balance + 1 WHERE id = $1", into); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE lr_accounts SET balance = 0 WHERE id = $1", from) // want `row order chosen by the caller: store\.MergeAccounts locks two rows of lr_accounts`
	return err
}

// MoveFunds is MergeAccounts with one call in svc that holds the rows and
// one that does not: reported by every driver.
func MoveFunds(ctx context.Context, tx pgx.Tx, from, to int64) error { // want MoveFunds:`^locks\(table:lr_accounts ROW EXCLUSIVE@p1, row:lr_accounts FOR NO KEY UPDATE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE lr_accounts SET balance = balance - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE lr_accounts SET balance = balance + 1 WHERE id = $1", to) // want `row order chosen by the caller: store\.MoveFunds locks two rows of lr_accounts`
	return err
}
