package svc // want package:"sql=true edges=34"

// The package begins the transactions that store's functions run on.

import (
	"context"

	"github.com/jackc/pgx/v5"

	"corpus/lentrows/store"
)

// Key names an order.
type Key struct{ Order int64 }

func lockOrder(ctx context.Context, tx pgx.Tx, k Key) error {
	_, err := tx.Exec(ctx, "SELECT id FROM lr_orders WHERE id = $1 FOR UPDATE", k.Order)
	return err
}

func dropItems(ctx context.Context, tx pgx.Tx, k Key, items []int64) error {
	return store.DeleteItems(ctx, tx, store.Filter{OrderID: k.Order, ItemIDs: items})
}

// Prune locks the order in a helper, then deletes through two more: the
// items all belong to the locked order.
func Prune(ctx context.Context, db *pgx.Conn, k Key, items []int64) error { // want Prune:`^locks\(table:lr_orders ROW SHARE@L0, row:lr_orders FOR UPDATE@L0, table:lr_items`
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := lockOrder(ctx, tx, k); err != nil {
			return err
		}
		return dropItems(ctx, tx, k, items)
	})
}

// PruneUngated deletes without locking the order.
func PruneUngated(ctx context.Context, db *pgx.Conn, k Key, items []int64) error { // want PruneUngated:`^locks\(table:lr_items ROW EXCLUSIVE@L0, row:lr_items FOR UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		return dropItems(ctx, tx, k, items) // want `(?s)unordered multi-row lock: DELETE takes rows of lr_items.*also: the same statement in the transactions of svc\.PruneOther\.func1, svc\.PruneOtherBegin \(one fix`
	})
}

// PruneOther locks one order and deletes the items of another: that row
// does not stand for these items (reported with PruneUngated: one
// statement, one report).
func PruneOther(ctx context.Context, db *pgx.Conn, k, other Key, items []int64) error { // want PruneOther:`^locks\(table:lr_orders ROW SHARE@L0, row:lr_orders FOR UPDATE@L0, table:lr_items`
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := lockOrder(ctx, tx, k); err != nil {
			return err
		}
		return dropItems(ctx, tx, other, items)
	})
}

// PruneOtherBegin is PruneOther with plain keys, without the runner.
func PruneOtherBegin(ctx context.Context, db *pgx.Conn, order, other int64, items []int64) error { // want PruneOtherBegin:`^locks\(table:lr_orders ROW SHARE@L0, row:lr_orders FOR UPDATE@L0, table:lr_items`
	tx, err := db.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM lr_orders WHERE id = $1 FOR UPDATE", order); err != nil {
		return err
	}
	if err := store.DeleteItems(ctx, tx, store.Filter{OrderID: other, ItemIDs: items}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// PruneBegin locks the order whose items it deletes: silent.
func PruneBegin(ctx context.Context, db *pgx.Conn, order int64, items []int64) error { // want PruneBegin:`^locks\(table:lr_orders ROW SHARE@L0, row:lr_orders FOR UPDATE@L0, table:lr_items`
	tx, err := db.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM lr_orders WHERE id = $1 FOR UPDATE", order); err != nil {
		return err
	}
	if err := store.DeleteItems(ctx, tx, store.Filter{OrderID: order, ItemIDs: items}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func lockAccount(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM lr_accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// Merge locks both accounts in key order, then lets the store update them
// in the order it likes: the rows are held, the store waits for nothing.
func Merge(ctx context.Context, db *pgx.Conn, dup, keep int64) error { // want Merge:`^locks\(table:lr_accounts ROW SHARE@L0, row:lr_accounts FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, min(dup, keep)); err != nil {
			return err
		}
		if err := lockAccount(ctx, tx, max(dup, keep)); err != nil {
			return err
		}
		return store.MergeAccounts(ctx, tx, dup, keep)
	})
}

// MoveLocked holds both rows before the move.
func MoveLocked(ctx context.Context, db *pgx.Conn, from, to int64) error { // want MoveLocked:`^locks\(table:lr_accounts ROW SHARE@L0, row:lr_accounts FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := lockAccount(ctx, tx, min(from, to)); err != nil {
			return err
		}
		if err := lockAccount(ctx, tx, max(from, to)); err != nil {
			return err
		}
		return store.MoveFunds(ctx, tx, from, to)
	})
}

// MoveBare does not: two moves in opposite directions deadlock.
func MoveBare(ctx context.Context, db *pgx.Conn, from, to int64) error { // want MoveBare:`^locks\(table:lr_accounts ROW EXCLUSIVE@L0, row:lr_accounts FOR NO KEY UPDATE@L0, `
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		return store.MoveFunds(ctx, tx, from, to)
	})
}
