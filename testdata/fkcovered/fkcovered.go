package fkcovered // want package:"sql=true edges=[0-9]+"

// A child row's foreign-key check takes FOR KEY SHARE on its parent row.
// Where the transaction holds that very row already, in a mode that covers
// it (the trip locked FOR UPDATE, then its log row inserted), the check
// adds no lock of its own: there is no upgrade to deadlock on, and the
// loop's order is that of the FOR UPDATE locks. Found by a blind test (a
// saga cancelling sorted trips was reported as a lock upgrade).

import (
	"context"
	"database/sql"
	"slices"
)

// CancelSorted locks each trip, then logs it, in key order: no deadlock.
func CancelSorted(ctx context.Context, db *sql.DB, ids []int64) error { // want CancelSorted:`^locks\(table:fc_trips ROW SHARE@L0, row:fc_trips FOR UPDATE@L0, table:fc_log ROW EXCLUSIVE@L0, table:fc_trips ROW SHARE@L0, row:fc_trips FOR KEY SHARE@L0, `
	ids = slices.Clone(ids)
	slices.Sort(ids)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM fc_trips WHERE id = $1 FOR UPDATE`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fc_log (trip_id, step) VALUES ($1, 'cancel')`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE fc_trips SET status = 'cancelled' WHERE id = $1`, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// CancelAsGiven does the same in the caller's order: two calls with the
// same trips in two orders deadlock on the FOR UPDATE locks, which is the
// only report.
func CancelAsGiven(ctx context.Context, db *sql.DB, ids []int64) error { // want CancelAsGiven:`^locks\(table:fc_trips ROW SHARE@L0, row:fc_trips FOR UPDATE@L0, `
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM fc_trips WHERE id = $1 FOR UPDATE`, id); err != nil { // want `lock order set by a loop: rows of fc_trips \(FOR UPDATE\)`
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fc_log (trip_id, step) VALUES ($1, 'cancel')`, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// LogThenLock logs the trip before it locks it: two runs for one trip both
// get the check's FOR KEY SHARE, then both wait for FOR UPDATE.
func LogThenLock(ctx context.Context, db *sql.DB, id int64) error { // want LogThenLock:`^locks\(table:fc_log ROW EXCLUSIVE@L0, table:fc_trips ROW SHARE@L0, row:fc_trips FOR KEY SHARE@L0, `
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO fc_log (trip_id, step) VALUES ($1, 'start')`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM fc_trips WHERE id = $1 FOR UPDATE`, id); err != nil { // want `lock-upgrade deadlock: fkcovered.LogThenLock holds rows of fc_trips \(FOR KEY SHARE\)`
		return err
	}
	return tx.Commit()
}

// LogOther locks one trip, then logs another one and locks that one: the
// check is on a row the transaction does not hold, chosen by the caller
// after the first. Two calls with the two trips swapped deadlock at the
// check already (FOR UPDATE blocks FOR KEY SHARE).
func LogOther(ctx context.Context, db *sql.DB, id, other int64) error { // want LogOther:`^locks\(table:fc_trips ROW SHARE@L0, row:fc_trips FOR UPDATE@L0, `
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM fc_trips WHERE id = $1 FOR UPDATE`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO fc_log (trip_id, step) VALUES ($1, 'link')`, other); err != nil { // want `(?s)row order chosen by the caller: fkcovered.LogOther locks two rows of fc_trips, first the one keyed by id, then the one keyed by other.*then waits: .*INSERT \(foreign key check on fc_trips\)`
		return err
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM fc_trips WHERE id = $1 FOR UPDATE`, other); err != nil { // want `row order chosen by the caller: fkcovered.LogOther locks two rows of fc_trips, first the one keyed by id, then the one keyed by other`
		return err
	}
	return tx.Commit()
}

func lockTrip(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, `SELECT 1 FROM fc_trips WHERE id = $1 FOR UPDATE`, id)
	return err
}

func logStep(ctx context.Context, tx *sql.Tx, id int64, step string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO fc_log (trip_id, step) VALUES ($1, $2)`, id, step)
	return err
}

// CancelSortedHelpers locks and logs each trip through helpers, in key
// order: the helper's check is on the row the other helper locked, by the
// same value, and adds no lock of its own.
func CancelSortedHelpers(ctx context.Context, db *sql.DB, ids []int64) error { // want CancelSortedHelpers:`^locks\(`
	ids = slices.Clone(ids)
	slices.Sort(ids)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range ids {
		if err := lockTrip(ctx, tx, id); err != nil {
			return err
		}
		if err := logStep(ctx, tx, id, "cancel"); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// LogThenLockHelpers logs before it locks, through the same helpers: the
// upgrade is still reported.
func LogThenLockHelpers(ctx context.Context, db *sql.DB, id int64) error { // want LogThenLockHelpers:`^locks\(`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := logStep(ctx, tx, id, "start"); err != nil {
		return err
	}
	if err := lockTrip(ctx, tx, id); err != nil { // want `lock-upgrade deadlock: fkcovered.LogThenLockHelpers holds rows of fc_trips \(FOR KEY SHARE\)`
		return err
	}
	return tx.Commit()
}
