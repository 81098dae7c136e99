// Package ledger posts entries through the store's interfaces only.
package ledger

import (
	"context"

	"program/wrapped/store"
)

// Ledger posts and voids entries.
type Ledger struct{ Conn store.Conn }

// Post locks the entry in a transaction that has locked the account.
func (l *Ledger) Post(ctx context.Context, account, entry int64) error {
	return store.InAccount(ctx, l.Conn, account, func(s store.Store) error {
		return s.LockEntry(ctx, entry)
	})
}

// Adjust locks the account, then the entry, like Post.
func (l *Ledger) Adjust(ctx context.Context, account, entry int64) error {
	return store.InTx(ctx, l.Conn, func(s store.Store) error {
		if err := s.LockAccount(ctx, account); err != nil {
			return err
		}
		return s.LockEntry(ctx, entry)
	})
}

// Void locks the entry, then the account: against Post and Adjust.
func (l *Ledger) Void(ctx context.Context, account, entry int64) error {
	tx, err := l.Conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := tx.LockEntry(ctx, entry); err != nil {
		return err
	}
	if err := tx.LockAccount(ctx, account); err != nil { // want `lock-order inversion: rows of accounts and rows of entries are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Reconcile locks the entry and the account in two transactions, one
// committed before the other begins: nothing is held across them.
func (l *Ledger) Reconcile(ctx context.Context, account, entry int64) error {
	if err := store.InTx(ctx, l.Conn, func(s store.Store) error { return s.LockEntry(ctx, entry) }); err != nil {
		return err
	}
	return store.InTx(ctx, l.Conn, func(s store.Store) error { return s.LockAccount(ctx, account) })
}
