package fkcascade // want package:"sql=true edges=[0-9]+"

// A DELETE locks the row it deletes before the cascades it fires lock that
// row's children: the row is a gate of the cascades' lock order, as a
// parent row locked FOR UPDATE first in a transaction is. Found by a blind
// test: closing a warehouse (one DELETE, cascading to bins, then stock) was
// reported against receiving stock under the warehouse's row lock, which
// PostgreSQL serialises (checked on a server: the DELETE waits for the
// receiving transaction and holds nothing in bins or stock meanwhile).

import (
	"context"
	"database/sql"
)

// Receive locks the warehouse, then upserts a stock row (whose foreign-key
// check locks the bin).
func Receive(ctx context.Context, db *sql.DB, wh, bin int64, sku string, qty int) error { // want Receive:`^locks\(table:cc_warehouses ROW SHARE@L0, row:cc_warehouses FOR UPDATE@L0, `
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT id FROM cc_warehouses WHERE id = $1 FOR UPDATE`, wh); err != nil {
		return err
	}
	const upsert = `INSERT INTO cc_stock (bin_id, sku, qty) VALUES ($1, $2, $3)
		ON CONFLICT (bin_id, sku) DO UPDATE SET qty = cc_stock.qty + EXCLUDED.qty`
	if _, err := tx.ExecContext(ctx, upsert, bin, sku, qty); err != nil { // want `lock-order inversion: rows of cc_bins and rows of cc_stock are locked in opposite orders(.|\n)*path 1: fkcascade.EmptyWarehouse holds rows of cc_bins(.|\n)*fix:`
		return err
	}
	return tx.Commit()
}

// CloseWarehouse deletes the warehouse: the cascades lock its bins, then
// their stock, behind the warehouse's own row.
func CloseWarehouse(ctx context.Context, db *sql.DB, wh int64) error { // want CloseWarehouse:`^locks\(table:cc_warehouses ROW EXCLUSIVE@p1, row:cc_warehouses FOR UPDATE@p1, table:cc_bins`
	_, err := db.ExecContext(ctx, `DELETE FROM cc_warehouses WHERE id = $1`, wh)
	return err
}

// EmptyWarehouse deletes the bins without the warehouse's row: their stock
// is locked after them with nothing in front, against Receive's order.
func EmptyWarehouse(ctx context.Context, db *sql.DB, wh int64) error { // want EmptyWarehouse:`^locks\(table:cc_bins ROW EXCLUSIVE@p1, row:cc_bins FOR UPDATE@p1, `
	_, err := db.ExecContext(ctx, `DELETE FROM cc_bins WHERE warehouse_id = $1`, wh)
	return err
}
