package gormrows

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Invoice is a row of invoices.
type Invoice struct {
	ID        int64
	AccountID int64
	Status    string
}

// lockRows is a GORM scope: it adds the locking clause to the chain it is
// applied to.
func lockRows(db *gorm.DB) *gorm.DB {
	return db.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
}

// ofStatus returns a scope with a parameter.
func ofStatus(status string) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB {
		return db.Where("status = ?", status)
	}
}

// LockInvoices locks the caller's invoices, given by primary keys, through
// a scope: a set of rows in no defined order.
func LockInvoices(db *gorm.DB, ids []int64) error { // want LockInvoices:`locks\(.*row:invoices FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var invs []Invoice
		return tx.Scopes(lockRows).Find(&invs, ids).Error // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of invoices`
	})
}

// LockOpen locks an account's open invoices: equalities on columns that are
// no key, one plan's order. Silent.
func LockOpen(db *gorm.DB, accountID int64) error { // want LockOpen:`locks\(.*row:invoices FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var invs []Invoice
		return tx.Scopes(lockRows, ofStatus("open")).Where("account_id = ?", accountID).Find(&invs).Error
	})
}

// LockInvoice locks one invoice through the scope: silent.
func LockInvoice(db *gorm.DB, id int64) error { // want LockInvoice:`locks\(.*row:invoices FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var inv Invoice
		return tx.Scopes(lockRows).First(&inv, id).Error
	})
}
