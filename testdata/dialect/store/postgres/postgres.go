// want package:"sql=true edges=12"

// Package postgres is the PostgreSQL implementation of the store: its
// inversion is a real deadlock.
package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is the pgx store.
type Store struct{ pool *pgxpool.Pool }

// Credit locks the account, then the ledger.
func (s *Store) Credit(ctx context.Context, id int64) error { // want Credit:`^locks\(table:accounts ROW EXCLUSIVE@L0, row:accounts FOR NO KEY UPDATE@L0, table:ledgers ROW EXCLUSIVE@L0, row:ledgers FOR NO KEY UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE ledgers SET total = total + 1 WHERE id = $1", id) // want `lock-order inversion: rows of accounts and rows of ledgers are locked in opposite orders`
		return err
	})
}

// Debit locks the ledger, then the account.
func (s *Store) Debit(ctx context.Context, id int64) error { // want Debit:`^locks\(table:ledgers ROW EXCLUSIVE@L0, row:ledgers FOR NO KEY UPDATE@L0, table:accounts ROW EXCLUSIVE@L0, row:accounts FOR NO KEY UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE ledgers SET total = total - 1 WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", id)
		return err
	})
}
