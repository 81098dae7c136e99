package rowlock // want package:"sql=true edges=[0-9]+"

// rowlock is a small toolkit shared by services: it locks one row by its
// key, in the caller's transaction.

import (
	"context"
	"database/sql"
)

// Lock locks the row of table whose id is id, for the rest of the
// transaction.
func Lock(ctx context.Context, tx *sql.Tx, table string, id int64) error { // want Lock:`^sinks\(\{"SELECT id FROM " \+ p2 \+ " WHERE id = \$1 FOR UPDATE"\}@p1\)$`
	var got int64
	return tx.QueryRowContext(ctx, "SELECT id FROM "+table+" WHERE id = $1 FOR UPDATE", id).Scan(&got)
}

// Shipment is a row of sg_shipments.
type Shipment struct {
	ID     int64
	Status string
}

// LockShipment locks a shipment and reads it into sh.
func LockShipment(ctx context.Context, tx *sql.Tx, id int64, sh *Shipment) error { // want LockShipment:`^locks\(table:sg_shipments ROW SHARE@p1, row:sg_shipments FOR UPDATE@p1\) holds\[0 1\]$`
	return tx.QueryRowContext(ctx, "SELECT id, status FROM sg_shipments WHERE id = $1 FOR UPDATE", id).Scan(&sh.ID, &sh.Status)
}
