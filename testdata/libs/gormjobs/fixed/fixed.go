package fixed // want package:"sql=true edges=12"

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Job is a row of jobs.
type Job struct {
	ID        int64
	AccountID int64
}

// BillingAccount is a row of billing_accounts (GORM's default name).
type BillingAccount struct {
	ID      int64
	Balance int64
}

// locked is a scope: the rows the chain it starts reads are locked.
func locked(tx *gorm.DB) *gorm.DB {
	return tx.Clauses(clause.Locking{Strength: "UPDATE"})
}

// Store keeps jobs and accounts with GORM.
type Store struct {
	db *gorm.DB
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:billing_accounts FOR NO KEY UPDATE@L0`
	return s.db.Transaction(func(tx *gorm.DB) error {
		var j Job
		if err := locked(tx).Take(&j, id).Error; err != nil {
			return err
		}
		return tx.Model(&BillingAccount{ID: j.AccountID}).Updates(map[string]any{"balance": gorm.Expr("balance - 1")}).Error
	})
}

// Refund locks the account's jobs first too, then credits the account.
func (s *Store) Refund(accountID int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0.*row:billing_accounts FOR NO KEY UPDATE@L0`
	tx := s.db.Begin()
	defer tx.Rollback()
	var ids []int64
	if err := tx.Raw("SELECT id FROM jobs WHERE account_id = ? FOR UPDATE", accountID).Scan(&ids).Error; err != nil {
		return err
	}
	acct := BillingAccount{ID: accountID}
	if err := tx.Table("billing_accounts").Where("id = ?", accountID).Update("balance", gorm.Expr("balance + 1")).Error; err != nil {
		return err
	}
	if err := tx.Save(&acct).Error; err != nil {
		return err
	}
	return tx.Commit().Error
}

// Sweep deletes a job on the pool, without a transaction: it holds nothing
// after the statement.
func Sweep(db *gorm.DB, id int64) error { // want Sweep:`locks\(table:jobs ROW EXCLUSIVE@p0, row:jobs FOR UPDATE@p0\) holds\[0 1\]`
	return db.Delete(&Job{}, id).Error
}
