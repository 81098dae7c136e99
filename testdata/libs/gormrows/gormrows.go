package gormrows // want package:"sql=true edges=[0-9]+"

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Job is a row of jobs.
type Job struct {
	ID    int64
	State string
}

// LockBatch locks a batch of jobs in whatever order the plan returns them:
// two batches that overlap deadlock.
func LockBatch(db *gorm.DB, ids []int64) error { // want LockBatch:`locks\(.*row:jobs FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var jobs []Job
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id IN ?", ids).Find(&jobs).Error // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of jobs`
	})
}

// LockBatchOrdered locks the batch in key order: silent.
func LockBatchOrdered(db *gorm.DB, ids []int64) error { // want LockBatchOrdered:`locks\(.*row:jobs FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var jobs []Job
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id IN ?", ids).Order("id").Find(&jobs).Error
	})
}

// LockOne locks one job by its key: silent.
func LockOne(db *gorm.DB, id int64) error { // want LockOne:`locks\(.*row:jobs FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var j Job
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&j, id).Error
	})
}

// LockByState locks the jobs a struct condition picks: the condition is not
// rendered, and no order is claimed for it either way.
func LockByState(db *gorm.DB) error { // want LockByState:`locks\(.*row:jobs FOR UPDATE`
	return db.Transaction(func(tx *gorm.DB) error {
		var jobs []Job
		return tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where(&Job{State: "queued"}).Find(&jobs).Error
	})
}
