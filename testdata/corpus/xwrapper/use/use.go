package use // want package:"sql=true edges=12"

import (
	"context"

	"github.com/jackc/pgx/v5"

	"corpus/xwrapper/dbx"
)

// Ship locks the shipment, then the parcel, through a wrapper of another
// package.
func Ship(ctx context.Context, tx pgx.Tx, id int64) error { // want Ship:`row:shipments FOR NO KEY UPDATE@p1, .*row:parcels FOR NO KEY UPDATE@p1\) holds`
	if err := dbx.Exec(ctx, tx, "UPDATE shipments SET shipped = true WHERE id = $1", id); err != nil {
		return err
	}
	return dbx.Exec(ctx, tx, "UPDATE parcels SET shipped = true WHERE shipment_id = $1", id)
}

// Return locks the parcel first: the opposite order.
func Return(ctx context.Context, tx pgx.Tx, id int64) error { // want Return:`row:parcels FOR NO KEY UPDATE@p1, .*row:shipments FOR NO KEY UPDATE@p1\) holds`
	if err := dbx.Exec(ctx, tx, "UPDATE parcels SET returned = true WHERE shipment_id = $1", id); err != nil {
		return err
	}
	return dbx.Exec(ctx, tx, "UPDATE shipments SET returned = true WHERE id = $1", id) // want `(?s)lock-order inversion: rows of parcels and rows of shipments are locked in opposite orders.*UPDATE in a transaction, run by dbx.Exec`
}
