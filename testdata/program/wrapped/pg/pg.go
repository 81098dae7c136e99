// Package pg implements the store on pgx.
package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"program/wrapped/store"
)

// DB is the connection.
type DB struct{ Pool *pgxpool.Pool }

// Begin begins a transaction.
func (d *DB) Begin(ctx context.Context) (store.Tx, error) {
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &txStore{tx: tx}, nil
}

// txStore is the store on one transaction.
type txStore struct{ tx pgx.Tx }

func (t *txStore) LockAccount(ctx context.Context, id int64) error {
	_, err := t.tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

func (t *txStore) LockEntry(ctx context.Context, id int64) error {
	_, err := t.tx.Exec(ctx, "SELECT 1 FROM entries WHERE id = $1 FOR UPDATE", id)
	return err
}

func (t *txStore) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t *txStore) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }
