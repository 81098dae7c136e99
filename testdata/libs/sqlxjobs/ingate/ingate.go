package ingate // want package:"sql=true edges=7"

// Timers of a run are deleted by set with sqlx.In, which spreads the set
// into the markers of IN (?) and returns the arguments to pass on: the run's
// row locked first is a gate for them only if the statement's run_id is
// known to be the same value, through In's arguments.

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Store keeps runs and their timers.
type Store struct {
	db *sqlx.DB
}

// Delete locks the run's row, then deletes some of its timers: every
// execution that deletes a timer of that run locks the run first, so the
// order of the timers cannot deadlock two of them.
func (s *Store) Delete(ctx context.Context, run int64, ids []int64) error { // want Delete:`locks\(table:runs ROW SHARE@L0, row:runs FOR UPDATE@L0, table:timers ROW EXCLUSIVE@L0, row:timers FOR UPDATE@L0\)`
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var next int64
	if err := tx.GetContext(ctx, &next, "SELECT next_event_id FROM runs WHERE id = $1 FOR UPDATE", run); err != nil {
		return err
	}
	q, args, err := sqlx.In("DELETE FROM timers WHERE run_id = ? AND timer_id IN (?)", run, ids)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
		return err
	}
	return tx.Commit()
}

// Purge deletes the same timers without locking the run: two purges of
// overlapping sets can take them in different orders.
func (s *Store) Purge(ctx context.Context, run int64, ids []int64) error { // want Purge:`locks\(table:timers ROW EXCLUSIVE@L0, row:timers FOR UPDATE@L0\)`
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args, err := sqlx.In("DELETE FROM timers WHERE run_id = ? AND timer_id IN (?)", run, ids)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil { // want `unordered multi-row lock: DELETE takes rows of timers`
		return err
	}
	return tx.Commit()
}
