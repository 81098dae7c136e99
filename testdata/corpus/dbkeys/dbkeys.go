package dbkeys // want package:"sql=true edges=[0-9]+"

// Moves between two rows of one table: the row to move from is found in the
// data (the booking's current desk, the device's current rack), the row to
// move to is the caller's. Two moves in opposite directions lock the two
// rows in opposite orders. Where the code orders the two keys, or finds the
// first row through the table it locks (a tree's parent, a row it just
// inserted), nothing is reported.

import (
	"context"
	"database/sql"
)

// Rebook moves a booking to another desk: it locks the desk the booking is
// on now, read from the booking, then the desk the caller names.
func Rebook(ctx context.Context, db *sql.DB, booking, toDesk int64) error { // want Rebook:`^locks\(table:dk_bookings ROW SHARE@L0, row:dk_bookings FOR UPDATE@L0, table:dk_desks ROW EXCLUSIVE@L0, row:dk_desks FOR NO KEY UPDATE@L0, table:dk_desks ROW EXCLUSIVE@L0, row:dk_desks FOR NO KEY UPDATE@L0, table:dk_bookings ROW EXCLUSIVE@L0, row:dk_bookings FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var fromDesk int64
	if err := tx.QueryRowContext(ctx, "SELECT desk_id FROM dk_bookings WHERE id = $1 FOR UPDATE", booking).Scan(&fromDesk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_desks SET free = true WHERE id = $1", fromDesk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_desks SET free = false WHERE id = $1", toDesk); err != nil { // want `row order chosen by the caller and the data: dbkeys\.Rebook locks two rows of dk_desks, first the one keyed by fromDesk \(read from the database\), then the one keyed by toDesk`
		return err
	}
	_, err = tx.ExecContext(ctx, "UPDATE dk_bookings SET desk_id = $2 WHERE id = $1", booking, toDesk)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Device is a row of dk_devices.
type Device struct {
	ID     int64
	RackID int64
}

// lockDevice locks a device and returns it.
func lockDevice(ctx context.Context, tx *sql.Tx, id int64) (Device, error) {
	var d Device
	err := tx.QueryRowContext(ctx, "SELECT id, rack_id FROM dk_devices WHERE id = $1 FOR UPDATE", id).Scan(&d.ID, &d.RackID)
	return d, err
}

// setPower updates a rack's power budget.
func setPower(ctx context.Context, tx *sql.Tx, rack, delta int64) error {
	_, err := tx.ExecContext(ctx, "UPDATE dk_racks SET power = power + $2 WHERE id = $1", rack, delta)
	return err
}

// Relocate moves a device to another rack: the caller's rack first, then
// the rack the device is in, read through a helper that returns the row.
func Relocate(ctx context.Context, db *sql.DB, device, toRack int64) error { // want Relocate:`^locks\(table:dk_devices ROW SHARE@L0, row:dk_devices FOR UPDATE@L0, table:dk_racks ROW EXCLUSIVE@L0, row:dk_racks FOR NO KEY UPDATE@L0, table:dk_racks ROW EXCLUSIVE@L0, row:dk_racks FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	d, err := lockDevice(ctx, tx, device)
	if err != nil {
		return err
	}
	if err := setPower(ctx, tx, toRack, 1); err != nil {
		return err
	}
	if err := setPower(ctx, tx, d.RackID, -1); err != nil { // want `row order chosen by the caller and the data: dbkeys\.Relocate locks two rows of dk_racks, first the one keyed by toRack, then the one keyed by d\.RackID \(read from the database\)`
		return err
	}
	return tx.Commit()
}

// RelocateOrdered is Relocate with the two racks locked lower id first.
func RelocateOrdered(ctx context.Context, db *sql.DB, device, toRack int64) error { // want RelocateOrdered:`^locks\(table:dk_devices ROW SHARE@L0, row:dk_devices FOR UPDATE@L0, table:dk_racks ROW EXCLUSIVE@L0, row:dk_racks FOR NO KEY UPDATE@L0, table:dk_racks ROW EXCLUSIVE@L0, row:dk_racks FOR NO KEY UPDATE@L0, table:dk_racks ROW EXCLUSIVE@L0, row:dk_racks FOR NO KEY UPDATE@L0, table:dk_racks ROW EXCLUSIVE@L0, row:dk_racks FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	d, err := lockDevice(ctx, tx, device)
	if err != nil {
		return err
	}
	if err := setPower(ctx, tx, min(d.RackID, toRack), 0); err != nil {
		return err
	}
	if err := setPower(ctx, tx, max(d.RackID, toRack), 0); err != nil {
		return err
	}
	if err := setPower(ctx, tx, toRack, 1); err != nil {
		return err
	}
	if err := setPower(ctx, tx, d.RackID, -1); err != nil {
		return err
	}
	return tx.Commit()
}

// RebookCompared orders the two desks by comparing their keys.
func RebookCompared(ctx context.Context, db *sql.DB, booking, toDesk int64) error { // want RebookCompared:`^locks\(table:dk_bookings ROW SHARE@L0, row:dk_bookings FOR UPDATE@L0, table:dk_desks ROW SHARE@L0, row:dk_desks FOR UPDATE@L0, table:dk_desks ROW SHARE@L0, row:dk_desks FOR UPDATE@L0, table:dk_desks ROW SHARE@L0, row:dk_desks FOR UPDATE@L0, table:dk_desks ROW SHARE@L0, row:dk_desks FOR UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var fromDesk int64
	if err := tx.QueryRowContext(ctx, "SELECT desk_id FROM dk_bookings WHERE id = $1 FOR UPDATE", booking).Scan(&fromDesk); err != nil {
		return err
	}
	lock := func(desk int64) error {
		_, err := tx.ExecContext(ctx, "SELECT 1 FROM dk_desks WHERE id = $1 FOR UPDATE", desk)
		return err
	}
	if fromDesk < toDesk {
		if err := lock(fromDesk); err != nil {
			return err
		}
		if err := lock(toDesk); err != nil {
			return err
		}
	} else {
		if err := lock(toDesk); err != nil {
			return err
		}
		if err := lock(fromDesk); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// RebookTogether locks both desks in one statement, in id order, first.
func RebookTogether(ctx context.Context, db *sql.DB, booking, toDesk int64) error { // want RebookTogether:`^locks\(table:dk_bookings ROW SHARE@L0, row:dk_bookings FOR UPDATE@L0, table:dk_desks ROW SHARE@L0, row:dk_desks FOR UPDATE@L0, table:dk_desks ROW EXCLUSIVE@L0, row:dk_desks FOR NO KEY UPDATE@L0, table:dk_desks ROW EXCLUSIVE@L0, row:dk_desks FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var fromDesk int64
	if err := tx.QueryRowContext(ctx, "SELECT desk_id FROM dk_bookings WHERE id = $1 FOR UPDATE", booking).Scan(&fromDesk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM dk_desks WHERE id IN ($1, $2) ORDER BY id FOR UPDATE", fromDesk, toDesk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_desks SET free = true WHERE id = $1", fromDesk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_desks SET free = false WHERE id = $1", toDesk); err != nil {
		return err
	}
	return tx.Commit()
}

// Rename locks a folder, then its parent, read from the folder's own row:
// a tree has no cycle, so two renames never wait for each other in both
// directions.
func Rename(ctx context.Context, db *sql.DB, folder int64, name string) error { // want Rename:`^locks\(table:dk_folders ROW SHARE@L0, row:dk_folders FOR UPDATE@L0, table:dk_folders ROW EXCLUSIVE@L0, row:dk_folders FOR NO KEY UPDATE@L0, table:dk_folders ROW EXCLUSIVE@L0, row:dk_folders FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var parent int64
	if err := tx.QueryRowContext(ctx, "SELECT parent_id FROM dk_folders WHERE id = $1 FOR UPDATE", folder).Scan(&parent); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_folders SET name = $2 WHERE id = $1", folder, name); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_folders SET mtime = now() WHERE id = $1", parent); err != nil {
		return err
	}
	return tx.Commit()
}

// Copy inserts a folder, then updates it and the caller's folder: the new
// row is nobody else's.
func Copy(ctx context.Context, db *sql.DB, from int64) error { // want Copy:`^locks\(table:dk_folders ROW EXCLUSIVE@L0, table:dk_folders ROW EXCLUSIVE@L0, row:dk_folders FOR NO KEY UPDATE@L0, table:dk_folders ROW EXCLUSIVE@L0, row:dk_folders FOR NO KEY UPDATE@L0\)$`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var id int64
	if err := tx.QueryRowContext(ctx, "INSERT INTO dk_folders (name) VALUES ('copy') RETURNING id").Scan(&id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_folders SET mtime = now() WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE dk_folders SET copies = copies + 1 WHERE id = $1", from); err != nil {
		return err
	}
	return tx.Commit()
}
