package retryplain // want package:"sql=true edges=[0-9]+"

// retryuow runs its services in a unit of work: a struct of
// repositories built over one transaction, begun inside a retry closure of
// another package. The transaction reaches the services' callbacks only
// inside the struct, through two closures.

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/retryplain/backoff"
)

// DBTX is what a repository runs its statements on: the pool or a
// transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Accounts is the repository of accounts.
type Accounts struct{ db DBTX }

// Debit takes amount from the account, locking its row.
func (r *Accounts) Debit(ctx context.Context, id, amount int64) error { // want Debit:`^locks\(table:billing_accounts ROW EXCLUSIVE@p0.db, row:billing_accounts FOR NO KEY UPDATE@p0.db\) holds\[0 1\]$`
	if _, err := r.db.Exec(ctx, "UPDATE billing_accounts SET balance = balance - $2 WHERE id = $1", id, amount); err != nil {
		return fmt.Errorf("debit account %d: %w", id, err)
	}
	return nil
}

// Invoices is the repository of invoices.
type Invoices struct{ db DBTX }

// MarkPaid locks the invoice row and marks it paid.
func (r *Invoices) MarkPaid(ctx context.Context, id int64) error { // want MarkPaid:`^locks\(table:billing_invoices ROW EXCLUSIVE@p0.db, row:billing_invoices FOR NO KEY UPDATE@p0.db\) holds\[0 1\]$`
	if _, err := r.db.Exec(ctx, "UPDATE billing_invoices SET paid = true WHERE id = $1", id); err != nil {
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
	return backoff.Retry(func() error {
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
			return fn(ctx, newUnitOfWork(tx))
		})
	}, 3)
}

// Pay debits the account, then marks the invoice paid.
func (s *Service) Pay(ctx context.Context, account, invoice, amount int64) error { // want Pay:`^locks\(table:billing_accounts ROW EXCLUSIVE@C0/C0/L0, row:billing_accounts FOR NO KEY UPDATE@C0/C0/L0, table:billing_invoices ROW EXCLUSIVE@C0/C0/L0, row:billing_invoices FOR NO KEY UPDATE@C0/C0/L0\)$`
	return s.atomically(ctx, func(ctx context.Context, uow *UnitOfWork) error {
		if err := uow.Accounts.Debit(ctx, account, amount); err != nil {
			return err
		}
		return uow.Invoices.MarkPaid(ctx, invoice) // want `lock-order inversion: rows of billing_accounts and rows of billing_invoices are locked in opposite orders`
	})
}

// Settle marks the invoice paid first, then debits the account: the
// opposite order of Pay.
func (s *Service) Settle(ctx context.Context, account, invoice, amount int64) error { // want Settle:`^locks\(table:billing_invoices ROW EXCLUSIVE@C0/C0/L0, row:billing_invoices FOR NO KEY UPDATE@C0/C0/L0, table:billing_accounts ROW EXCLUSIVE@C0/C0/L0, row:billing_accounts FOR NO KEY UPDATE@C0/C0/L0\)$`
	return s.atomically(ctx, func(ctx context.Context, uow *UnitOfWork) error {
		if err := uow.Invoices.MarkPaid(ctx, invoice); err != nil {
			return err
		}
		return uow.Accounts.Debit(ctx, account, amount)
	})
}
