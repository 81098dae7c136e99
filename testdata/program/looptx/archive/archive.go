// Package archive archives finished uploads: once with a transaction per
// upload (each holds one upload's rows, whatever the order of the uploads),
// once with one transaction for all, in the order a query without ORDER BY
// returned them.
package archive

import (
	"context"

	"program/looptx/dbx"
)

// Archiver archives uploads. Each method lists the uploads itself rather
// than through a helper: a slice a helper returns is not known to be
// unordered (a limit of the loop rule, see the README).
type Archiver struct{ db *dbx.DB }

// EachInItsOwn begins a transaction per upload, through the wrapper: no
// transaction holds one upload's rows while it waits for another's.
func (a *Archiver) EachInItsOwn(ctx context.Context) error {
	rows, err := a.db.QueryContext(ctx, "SELECT id FROM uploads WHERE status = 'done' LIMIT 100")
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, id := range ids {
		tx, err := a.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM load_files WHERE upload_id = $1", id); err != nil {
			_ = tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE uploads SET archived = true WHERE id = $1", id); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// AllInOne archives every upload in one transaction, in the order of the
// query: two archivers with overlapping uploads can lock them in different
// orders.
func (a *Archiver) AllInOne(ctx context.Context) error {
	rows, err := a.db.QueryContext(ctx, "SELECT id FROM uploads WHERE status = 'done' LIMIT 100")
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, "UPDATE uploads SET archived = true WHERE id = $1", id); err != nil { // want `^lock order set by a loop: rows of uploads \(FOR NO KEY UPDATE\)`
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}
