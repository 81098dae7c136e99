package gormjobs

import (
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// errRetry marks a transaction worth running again.
var errRetry = errors.New("serialization failure")

// txn runs f in a GORM transaction, again while it asks for a retry: the
// project's own wrapper, which hands GORM the callback it was given.
func (s *Store) txn(f func(tx *gorm.DB) error) error { // want txn:`invokes\(p1\(0=L0\(transaction\)\)\)`
	for range 3 {
		err := s.db.Transaction(f)
		if !errors.Is(err, errRetry) {
			return err
		}
	}
	return errRetry
}

// Invoice is a row of invoices.
type Invoice struct {
	ID         int64
	CustomerID int64
}

// Customer is a row of customers.
type Customer struct {
	ID int64
}

// Bill locks the invoice, then its customer, through the wrapper.
func (s *Store) Bill(id int64) error { // want Bill:`locks\(.*row:invoices FOR UPDATE.*row:customers FOR UPDATE`
	return s.txn(func(tx *gorm.DB) error {
		var inv Invoice
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&inv, id).Error; err != nil {
			return err
		}
		var c Customer
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&c, inv.CustomerID).Error
	})
}

// Merge locks the customer, then an invoice: against Bill.
func (s *Store) Merge(customer, invoice int64) error { // want Merge:`locks\(.*row:customers FOR UPDATE.*row:invoices FOR UPDATE`
	return s.txn(func(tx *gorm.DB) error { // want `lock-order inversion: rows of customers and rows of invoices are locked in opposite orders`
		var c Customer
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&c, customer).Error; err != nil {
			return err
		}
		var inv Invoice
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&inv, invoice).Error
	})
}

// Settle locks the invoice and the customer in two runs of the wrapper:
// the first commits before the second begins.
func (s *Store) Settle(customer, invoice int64) error { // want Settle:`^locks\(table:customers ROW SHARE@C0/L0, row:customers FOR UPDATE@C0/L0, table:invoices ROW SHARE@C1/L0, row:invoices FOR UPDATE@C1/L0\)$`
	if err := s.txn(func(tx *gorm.DB) error {
		var c Customer
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&c, customer).Error
	}); err != nil {
		return err
	}
	return s.txn(func(tx *gorm.DB) error {
		var inv Invoice
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&inv, invoice).Error
	})
}
