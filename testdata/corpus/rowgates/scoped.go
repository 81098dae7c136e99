package rowgates

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// A parent row keyed by the caller's value guards the rows that every
// statement selects within that parent (WHERE ... AND warehouse_id = $2
// after locking the warehouse): two calls that lock the same bins name the
// same warehouse, and lock it first.

// lockBin locks one bin of a warehouse.
func lockBin(ctx context.Context, tx pgx.Tx, bin, warehouse int64) error {
	_, err := tx.Exec(ctx, "SELECT 1 FROM rg_bins WHERE id = $1 AND warehouse_id = $2 FOR UPDATE", bin, warehouse)
	return err
}

// MoveStock locks the warehouse, then two of its bins in the caller's
// order: within the warehouse, serialised.
func MoveStock(ctx context.Context, tx pgx.Tx, warehouse, from, to int64) error { // want MoveStock:`^locks\(table:rg_warehouses ROW SHARE@p1, row:rg_warehouses FOR NO KEY UPDATE@p1, table:rg_bins ROW SHARE@p1, row:rg_bins FOR UPDATE@p1, `
	if _, err := tx.Exec(ctx, "SELECT 1 FROM rg_warehouses WHERE id = $1 FOR NO KEY UPDATE", warehouse); err != nil {
		return err
	}
	if err := lockBin(ctx, tx, from, warehouse); err != nil {
		return err
	}
	return lockBin(ctx, tx, to, warehouse)
}

// MoveStockAnyWarehouse locks the warehouse, then two bins it does not
// scope by that warehouse: two calls naming different warehouses for the
// same bins deadlock.
func MoveStockAnyWarehouse(ctx context.Context, tx pgx.Tx, warehouse, from, to int64) error { // want MoveStockAnyWarehouse:`^locks\(table:rg_warehouses ROW SHARE@p1, row:rg_warehouses FOR NO KEY UPDATE@p1, table:rg_bins ROW SHARE@p1, row:rg_bins FOR UPDATE@p1, `
	if _, err := tx.Exec(ctx, "SELECT 1 FROM rg_warehouses WHERE id = $1 FOR NO KEY UPDATE", warehouse); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM rg_bins WHERE id = $1 FOR UPDATE", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT 1 FROM rg_bins WHERE id = $1 FOR UPDATE", to) // want `row order chosen by the caller: rowgates.MoveStockAnyWarehouse locks two rows of rg_bins`
	return err
}

// MoveStockOtherScope locks the warehouse, then two bins scoped by another
// value than the warehouse locked: no guard.
func MoveStockOtherScope(ctx context.Context, tx pgx.Tx, warehouse, zone, from, to int64) error { // want MoveStockOtherScope:`^locks\(table:rg_warehouses ROW SHARE@p1, row:rg_warehouses FOR NO KEY UPDATE@p1, table:rg_bins ROW SHARE@p1, row:rg_bins FOR UPDATE@p1, `
	if _, err := tx.Exec(ctx, "SELECT 1 FROM rg_warehouses WHERE id = $1 FOR NO KEY UPDATE", warehouse); err != nil {
		return err
	}
	if err := lockBin(ctx, tx, from, zone); err != nil {
		return err
	}
	return lockBin(ctx, tx, to, zone) // want `row order chosen by the caller: rowgates.MoveStockOtherScope locks two rows of rg_bins`
}
