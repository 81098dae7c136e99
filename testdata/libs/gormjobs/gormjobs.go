package gormjobs

import (
	"libs/gormjobs/models"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Job is a row of jobs (GORM's default name for the model).
type Job struct {
	ID        int64
	AccountID int64
}

// Store keeps jobs and accounts with GORM.
type Store struct {
	db *gorm.DB
}

// Claim locks the job, then charges its account, in a transaction GORM
// runs the callback in.
func (s *Store) Claim(id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:billing_accounts FOR NO KEY UPDATE@L0`
	return s.db.Transaction(func(tx *gorm.DB) error {
		var j Job
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).First(&j).Error; err != nil {
			return err
		}
		return tx.Model(&models.Account{}).Where("id = ?", j.AccountID).Update("balance", gorm.Expr("balance - 1")).Error
	})
}

// Refund credits the account, then locks its jobs: the opposite order.
func (s *Store) Refund(accountID int64) error { // want Refund:`locks\(.*row:billing_accounts FOR NO KEY UPDATE@L0.*row:jobs FOR UPDATE@L0`
	tx := s.db.Begin()
	defer tx.Rollback()
	if err := tx.Exec("UPDATE billing_accounts SET balance = balance + 1 WHERE id = ?", accountID).Error; err != nil {
		return err
	}
	var jobs []Job
	if err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).Find(&jobs, "account_id = ?", accountID).Error; err != nil { // want `lock-order inversion: rows of billing_accounts and rows of jobs are locked in opposite orders`
		return err
	}
	return tx.Commit().Error
}
