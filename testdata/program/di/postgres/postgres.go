// Package postgres implements the domain's ports on PostgreSQL. It imports
// the domain for the types of its ports; the domain never imports it.
package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"program/di/domain"
)

// UOW is the unit of work on a pool.
type UOW struct{ Pool *pgxpool.Pool }

// repos are the repositories on one transaction.
type repos struct{ tx pgx.Tx }

func (r repos) LockInvoice(ctx context.Context, id int64) error {
	_, err := r.tx.Exec(ctx, "SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE", id)
	return err
}

func (r repos) LockCustomer(ctx context.Context, id int64) error {
	_, err := r.tx.Exec(ctx, "SELECT 1 FROM customers WHERE id = $1 FOR UPDATE", id)
	return err
}

// Do runs fn in a transaction.
func (u UOW) Do(ctx context.Context, fn func(ctx context.Context, r domain.Repos) error) error {
	return pgx.BeginFunc(ctx, u.Pool, func(tx pgx.Tx) error {
		return fn(ctx, repos{tx: tx})
	})
}

// Ledger settles invoices.
type Ledger struct{ Pool *pgxpool.Pool }

// Settle locks the invoice, then updates its customer's balance.
func (l *Ledger) Settle(ctx context.Context, invoiceID int64) error {
	return pgx.BeginFunc(ctx, l.Pool, func(tx pgx.Tx) error {
		var customer int64
		if err := tx.QueryRow(ctx, "SELECT customer_id FROM invoices WHERE id = $1 FOR UPDATE", invoiceID).Scan(&customer); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE customers SET balance = balance - 1 WHERE id = $1", customer)
		return err
	})
}

// Reopen locks the customer's invoices, then the customer: the order of
// Settle.
func (l *Ledger) Reopen(ctx context.Context, customerID int64) error {
	return pgx.BeginFunc(ctx, l.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM invoices WHERE customer_id = $1 ORDER BY id FOR UPDATE", customerID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE customers SET frozen = false WHERE id = $1", customerID)
		return err
	})
}
