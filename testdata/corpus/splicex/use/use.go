package use // want package:"sql=true edges=[0-9]+"

// Package use runs the text package sqlq returns.

import (
	"context"

	"github.com/jackc/pgx/v5"

	"corpus/splicex/sqlq"
)

// Dock locks the bay, then the dock, with text from sqlq.
func Dock(ctx context.Context, tx pgx.Tx, bay, dock int64) error { // want Dock:`locks\(.*row:sx_bays FOR UPDATE@p1.*row:sx_docks FOR UPDATE@p1`
	if _, err := tx.Exec(ctx, sqlq.Load("lock_bay"), bay); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, sqlq.LockSQL("sx_docks", sqlq.DockColumns), dock) // want `lock-order inversion: rows of sx_bays and rows of sx_docks are locked in opposite orders`
	return err
}

// Undock locks the dock, then the bay: against Dock.
func Undock(ctx context.Context, tx pgx.Tx, bay, dock int64) error { // want Undock:`locks\(.*row:sx_docks FOR UPDATE@p1.*row:sx_bays FOR UPDATE@p1`
	if _, err := tx.Exec(ctx, sqlq.LockSQL("sx_docks", sqlq.DockColumns), dock); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, sqlq.Load("lock_bay"), bay)
	return err
}

// Audit locks two docks of the list's table and a bay read with text that
// names no lock: no cycle with the bay.
func Audit(ctx context.Context, tx pgx.Tx, bay int64) error { // want Audit:`locks\(.*row:sx_bays FOR UPDATE@p1`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM sx_logs WHERE note = $1", sqlq.Describe("sx_docks")); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, sqlq.Load("lock_bay"), bay)
	return err
}
