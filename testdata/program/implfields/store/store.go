// Package store runs a service's transactions through whichever back end
// main chose. Every statement of a transaction runs on the Tx that
// txExecute began, whichever back end's field keeps it: an inversion here
// is two transactions' (PostgreSQL aborts one), not a wait through a
// second connection.
package store

import (
	"context"

	"program/implfields/plugin"
)

// Store is the service's persistence.
type Store struct{ DB plugin.DB }

func (m *Store) txExecute(ctx context.Context, f func(tx plugin.Tx) error) error {
	tx, err := m.DB.BeginTx(ctx)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Delete removes a run's rows: children first, then activities, against
// the order Update keeps.
func (m *Store) Delete(ctx context.Context, run string) error {
	return m.txExecute(ctx, func(tx plugin.Tx) error {
		if err := tx.DeleteAllChildren(ctx, run); err != nil {
			return err
		}
		return tx.DeleteAllActivities(ctx, run) // want `^lock-order inversion: rows of activity_maps and rows of child_maps are locked in opposite orders; concurrent transactions`
	})
}

// Update changes a run's rows: activities first, then children, after
// locking the run's row, which makes its unordered deletes safe (two
// executions that delete overlapping rows lock the same run first,
// whichever back end's field keeps the transaction), but which Delete does
// not take.
func (m *Store) Update(ctx context.Context, run string, acts, kids []int64) error {
	return m.txExecute(ctx, func(tx plugin.Tx) error {
		if err := tx.LockRun(ctx, run); err != nil {
			return err
		}
		if err := tx.DeleteActivities(ctx, run, acts); err != nil {
			return err
		}
		return tx.DeleteChildren(ctx, run, kids)
	})
}

// Apply changes a run's rows through helpers that get the transaction,
// without locking the run first: two executions that delete overlapping
// rows in different orders deadlock.
func (m *Store) Apply(ctx context.Context, run string, acts, kids []int64) error {
	return m.txExecute(ctx, func(tx plugin.Tx) error { // want `^unordered multi-row lock: DELETE takes rows of activity_maps` `^unordered multi-row lock: DELETE takes rows of child_maps`
		return applyMutation(ctx, tx, run, acts, kids)
	})
}

// Guarded does the same after locking the run's row: silent, whichever
// back end runs it.
func (m *Store) Guarded(ctx context.Context, run string, acts, kids []int64) error {
	return m.txExecute(ctx, func(tx plugin.Tx) error {
		if err := tx.LockRun(ctx, run); err != nil {
			return err
		}
		return applyMutation(ctx, tx, run, acts, kids)
	})
}

func applyMutation(ctx context.Context, tx plugin.Tx, run string, acts, kids []int64) error {
	if err := tx.DeleteActivities(ctx, run, acts); err != nil {
		return err
	}
	return tx.DeleteChildren(ctx, run, kids)
}
