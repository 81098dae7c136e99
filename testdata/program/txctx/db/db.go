// Package db keeps the transaction of a unit of work in the context:
// repositories run on it when there is one, on the pool otherwise.
package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

type txKey struct{}

// Querier runs statements.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Conn returns the context's transaction, or the pool.
func Conn(ctx context.Context, pool *pgxpool.Pool) Querier {
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return pool
}

// InTx runs fn with a context that carries a new transaction.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(ctx context.Context) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if err := fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Retry runs fn up to three times; it only passes the context along.
func Retry(ctx context.Context, fn func(ctx context.Context) error) error {
	var err error
	for range 3 {
		if err = fn(ctx); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}
