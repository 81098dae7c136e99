package rows // want package:"sql=true edges=[0-9]+"

// Sets of rows locked with squirrel's Eq maps: a slice value is a list of
// keys (squirrel renders id IN (...)), a set in no defined order.

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// HoldMany locks the caller's cars in the order the plan returns them: two
// holds that overlap deadlock.
func HoldMany(ctx context.Context, tx *sql.Tx, ids []int64) error { // want HoldMany:`locks\(.*row:cars FOR UPDATE`
	rows, err := psql.Select("id").From("cars").
		Where(sq.Eq{"id": ids, "status": "available"}).
		Suffix("FOR UPDATE").
		RunWith(tx).QueryContext(ctx) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of cars`
	if err != nil {
		return err
	}
	return rows.Close()
}

// HoldManyOrdered locks the same set in key order: silent.
func HoldManyOrdered(ctx context.Context, tx *sql.Tx, ids []int64) error { // want HoldManyOrdered:`locks\(.*row:cars FOR UPDATE`
	rows, err := psql.Select("id").From("cars").
		Where(sq.Eq{"id": ids}).
		OrderBy("id").
		Suffix("FOR UPDATE").
		RunWith(tx).QueryContext(ctx)
	if err != nil {
		return err
	}
	return rows.Close()
}

// HoldOne locks one car by its key (a scalar in the Eq map): silent.
func HoldOne(ctx context.Context, tx *sql.Tx, id int64, label []byte) error { // want HoldOne:`locks\(.*row:cars FOR UPDATE`
	q, args, err := psql.Select("id").From("cars").
		Where(sq.Eq{"id": id, "label": label}).
		Suffix("FOR UPDATE").ToSql()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}

// HoldNewer locks the cars past a key: a range (sq.Gt), several rows in no
// defined order.
func HoldNewer(ctx context.Context, tx *sql.Tx, after int64) error { // want HoldNewer:`locks\(.*row:vans FOR UPDATE`
	rows, err := psql.Select("id").From("vans").
		Where(sq.And{sq.Gt{"id": after}, sq.LtOrEq{"id": after + 100}}).
		Suffix("FOR UPDATE").
		RunWith(tx).QueryContext(ctx) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of vans`
	if err != nil {
		return err
	}
	return rows.Close()
}

// HoldFleet locks one fleet's available trucks: equalities on columns that
// are no key pick the rows by one predicate, in one plan's order. Silent.
func HoldFleet(ctx context.Context, tx *sql.Tx, fleetID int64) error { // want HoldFleet:`locks\(.*row:trucks FOR UPDATE`
	rows, err := psql.Select("id").From("trucks").
		Where(sq.And{sq.Eq{"fleet_id": fleetID}, sq.Eq{"status": "available"}}).
		Suffix("FOR UPDATE").
		RunWith(tx).QueryContext(ctx)
	if err != nil {
		return err
	}
	return rows.Close()
}

// MoveParcels locks the shipment, then moves some of its parcels: the
// UPDATE picks rows of that shipment only (its key is a value of the Eq
// map, bound through ToSql's args), so the shipment row serialises the
// calls that could overlap. Silent.
func MoveParcels(ctx context.Context, tx *sql.Tx, shipmentID int64, parcelIDs []int64) error { // want MoveParcels:`locks\(.*row:shipments FOR UPDATE.*row:parcels FOR NO KEY UPDATE`
	var id int64
	if err := tx.QueryRowContext(ctx, "SELECT id FROM shipments WHERE id = $1 FOR UPDATE", shipmentID).Scan(&id); err != nil {
		return err
	}
	q, args, err := psql.Update("parcels").Set("shipment_id", 0).Where(sq.Eq{"id": parcelIDs, "shipment_id": shipmentID}).ToSql()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}

// MoveAnyParcels moves the caller's parcels without the shipment's lock:
// unordered.
func MoveAnyParcels(ctx context.Context, tx *sql.Tx, parcelIDs []int64) error { // want MoveAnyParcels:`locks\(.*row:parcels FOR NO KEY UPDATE`
	q, args, err := psql.Update("parcels").Set("shipment_id", 0).Where(sq.Eq{"id": parcelIDs}).ToSql()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, q, args...) // want `unordered multi-row lock: UPDATE takes rows of parcels`
	return err
}
