// Package domain is the business logic of a service built as ports and
// adapters: it declares the storage it needs and never imports an
// implementation; main wires the Postgres adapter in.
package domain

import (
	"context"
	"errors"
)

// Repos are the repositories a unit of work hands its callback.
type Repos interface {
	LockInvoice(ctx context.Context, id int64) error
	LockCustomer(ctx context.Context, id int64) error
}

// UnitOfWork runs fn in one transaction.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context, r Repos) error) error
}

// Ledger is a store the service calls outside any unit of work.
type Ledger interface {
	Settle(ctx context.Context, invoiceID int64) error
	Reopen(ctx context.Context, customerID int64) error
}

// ErrClosed is returned for a closed invoice.
var ErrClosed = errors.New("invoice closed")

// Billing is the application service.
type Billing struct {
	UOW    UnitOfWork
	Ledger Ledger
}

// Pay locks the invoice, then its customer.
func (b *Billing) Pay(ctx context.Context, invoice, customer int64) error {
	return b.UOW.Do(ctx, func(ctx context.Context, r Repos) error {
		if err := r.LockInvoice(ctx, invoice); err != nil {
			return err
		}
		return r.LockCustomer(ctx, customer)
	})
}

// Merge locks the customer, then an invoice: against Pay.
func (b *Billing) Merge(ctx context.Context, invoice, customer int64) error {
	return b.UOW.Do(ctx, func(ctx context.Context, r Repos) error {
		if err := r.LockCustomer(ctx, customer); err != nil {
			return err
		}
		return r.LockInvoice(ctx, invoice) // want `lock-order inversion: rows of customers and rows of invoices are locked in opposite orders`
	})
}

// Close settles an invoice through the ledger.
func (b *Billing) Close(ctx context.Context, invoice int64) error {
	return b.Ledger.Settle(ctx, invoice)
}

// Reopen reopens a customer's invoices through the ledger.
func (b *Billing) Reopen(ctx context.Context, customer int64) error {
	return b.Ledger.Reopen(ctx, customer)
}
