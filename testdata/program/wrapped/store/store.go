// Package store declares the storage of the ledger as interfaces of the
// project's own: a connection whose Begin returns a transaction that is
// also a store, and a runner that hands its callback the transaction as a
// Store.
package store

import "context"

// Store locks the ledger's rows.
type Store interface {
	LockAccount(ctx context.Context, id int64) error
	LockEntry(ctx context.Context, id int64) error
}

// Tx is a store inside a transaction.
type Tx interface {
	Store
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Conn begins transactions.
type Conn interface {
	Begin(ctx context.Context) (Tx, error)
}

// InTx runs fn in a transaction of c, handing it the transaction as a
// Store.
func InTx(ctx context.Context, c Conn, fn func(s Store) error) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// InAccount runs fn in a transaction of c that first locks the account.
func InAccount(ctx context.Context, c Conn, account int64, fn func(s Store) error) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := tx.LockAccount(ctx, account); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
