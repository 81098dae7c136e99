package retryuowok // want package:"sql=true edges=12"

// retryuowok is the correct twin of retryuow: the same unit of
// work over a transaction begun inside a retry closure of another package,
// with every service locking accounts before invoices.

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/retryuowok/backoff"
)

// DBTX is what a repository runs its statements on: the pool or a
// transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Accounts is the repository of accounts.
type Accounts struct{ db DBTX }

// Debit takes amount from the account, locking its row.
func (r *Accounts) Debit(ctx context.Context, id, amount int64) error { // want Debit:`^locks\(table:payroll_accounts ROW EXCLUSIVE@p0.db, row:payroll_accounts FOR NO KEY UPDATE@p0.db\) holds\[0 1\]$`
	if _, err := r.db.Exec(ctx, "UPDATE payroll_accounts SET balance = balance - $2 WHERE id = $1", id, amount); err != nil {
		return fmt.Errorf("debit account %d: %w", id, err)
	}
	return nil
}

// Invoices is the repository of invoices.
type Invoices struct{ db DBTX }

// MarkPaid locks the invoice row and marks it paid.
func (r *Invoices) MarkPaid(ctx context.Context, id int64) error { // want MarkPaid:`^locks\(table:payroll_invoices ROW EXCLUSIVE@p0.db, row:payroll_invoices FOR NO KEY UPDATE@p0.db\) holds\[0 1\]$`
	if _, err := r.db.Exec(ctx, "UPDATE payroll_invoices SET paid = true WHERE id = $1", id); err != nil {
		return fmt.Errorf("mark invoice %d paid: %w", id, err)
	}
	return nil
}

// UnitOfWork holds the repositories of one transaction.
type UnitOfWork struct {
	Accounts *Accounts
	Invoices *Invoices
}

func newUnitOfWork(db DBTX) *UnitOfWork {
	return &UnitOfWork{Accounts: &Accounts{db: db}, Invoices: &Invoices{db: db}}
}

// Service runs the billing operations.
type Service struct{ pool *pgxpool.Pool }

// atomically runs fn in one transaction, retried when PostgreSQL aborts it.
func (s *Service) atomically(ctx context.Context, fn func(ctx context.Context, uow *UnitOfWork) error) error { // want atomically:`^invokes\(p2\(0.ctx\$tx=p1.ctx\$tx\(handle\), 1.Accounts.db=C0/L0\(transaction\), 1.Invoices.db=C0/L0\(transaction\)\)\)$`
	return backoff.Retry(ctx, 3, func() error {
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
			return fn(ctx, newUnitOfWork(tx))
		})
	})
}

// Pay debits the account, then marks the invoice paid.
func (s *Service) Pay(ctx context.Context, account, invoice, amount int64) error { // want Pay:`^locks\(table:payroll_accounts ROW EXCLUSIVE@C0/C0/L0, row:payroll_accounts FOR NO KEY UPDATE@C0/C0/L0, table:payroll_invoices ROW EXCLUSIVE@C0/C0/L0, row:payroll_invoices FOR NO KEY UPDATE@C0/C0/L0\)$`
	return s.atomically(ctx, func(ctx context.Context, uow *UnitOfWork) error {
		if err := uow.Accounts.Debit(ctx, account, amount); err != nil {
			return err
		}
		return uow.Invoices.MarkPaid(ctx, invoice)
	})
}

// Settle debits the account, then marks the invoice paid, as Pay does:
// the same order, no deadlock.
func (s *Service) Settle(ctx context.Context, account, invoice, amount int64) error { // want Settle:`^locks\(table:payroll_accounts ROW EXCLUSIVE@C0/C0/L0, row:payroll_accounts FOR NO KEY UPDATE@C0/C0/L0, table:payroll_invoices ROW EXCLUSIVE@C0/C0/L0, row:payroll_invoices FOR NO KEY UPDATE@C0/C0/L0\)$`
	return s.atomically(ctx, func(ctx context.Context, uow *UnitOfWork) error {
		if err := uow.Accounts.Debit(ctx, account, amount); err != nil {
			return err
		}
		return uow.Invoices.MarkPaid(ctx, invoice)
	})
}
