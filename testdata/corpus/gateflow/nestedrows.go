package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// archiveTrips takes the trips gate on its caller's handle, then updates a
// caller's set of trips: where the handle is a transaction, the gate stands
// in front of the unordered write.
func archiveTrips(ctx context.Context, db DBTX, ids []int64) error {
	if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock(941)"); err != nil {
		return err
	}
	_, err := db.Exec(ctx, "UPDATE gf_trips SET n = 0 WHERE id = ANY($1)", ids)
	return err
}

// archiveFares does the same without the gate.
func archiveFares(ctx context.Context, db DBTX, ids []int64) error {
	_, err := db.Exec(ctx, "UPDATE gf_fares SET n = 0 WHERE id = ANY($1)", ids)
	return err
}

// Archive runs archiveTrips in a transaction: guarded, silent.
func Archive(ctx context.Context, tx pgx.Tx, ids []int64) error { // want Archive:`^locks\(advisory:\(941\) exclusive@p1, `
	return archiveTrips(ctx, tx, ids)
}

// ArchiveFares runs archiveFares in a transaction: unguarded, reported.
func ArchiveFares(ctx context.Context, tx pgx.Tx, ids []int64) error { // want ArchiveFares:`^locks\(table:gf_fares ROW EXCLUSIVE@p1, `
	return archiveFares(ctx, tx, ids) // want `unordered multi-row lock: UPDATE takes rows of gf_fares`
}

// Fares takes the trips gate through archiveTrips before archiveFares: its
// later statements run behind it too.
func Fares(ctx context.Context, tx pgx.Tx, ids []int64) error { // want Fares:`^locks\(advisory:\(941\) exclusive@p1, `
	if err := archiveTrips(ctx, tx, ids); err != nil {
		return err
	}
	return archiveFares(ctx, tx, ids)
}
