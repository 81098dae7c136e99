// Package metered wraps another back end, as a metrics or fault-injection
// layer does: its DB and Tx embed the wrapped back end's, whose methods
// they promote, and keep the transaction in the wrapped value's fields.
package metered

import (
	"context"

	"program/implfields/plugin"
)

type db struct{ plugin.DB }

type tx struct{ plugin.Tx }

// Wrap returns inner, metered.
func Wrap(inner plugin.DB) plugin.DB { return &db{DB: inner} }

func (d *db) BeginTx(ctx context.Context) (plugin.Tx, error) {
	t, err := d.DB.BeginTx(ctx)
	if err != nil {
		return nil, err
	}
	return &tx{Tx: t}, nil
}

// DeleteAllChildren counts the deletes, then runs them on the wrapped
// transaction.
func (t *tx) DeleteAllChildren(ctx context.Context, run string) error {
	deletes++
	return t.Tx.DeleteAllChildren(ctx, run)
}

// deletes counts the runs deleted.
var deletes int
