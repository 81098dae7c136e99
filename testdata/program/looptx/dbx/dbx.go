// Package dbx wraps database/sql as services do, for metrics and timeouts:
// its BeginTx returns a Tx of its own that embeds the *sql.Tx.
package dbx

import (
	"context"
	"database/sql"
)

// DB is the wrapped pool.
type DB struct {
	*sql.DB
}

// Tx is the wrapped transaction.
type Tx struct {
	*sql.Tx
	db *DB
}

// BeginTx begins a transaction on the pool.
func (db *DB) BeginTx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) {
	tx, err := db.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Tx{Tx: tx, db: db}, nil
}

// ExecContext runs a statement in the transaction.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.Tx.ExecContext(ctx, query, args...)
}

// Commit commits the transaction.
func (tx *Tx) Commit() error {
	return tx.Tx.Commit()
}
