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

// swapJobs locks two jobs by the keys its caller passes, in that order:
// swapJobs(a, b) and swapJobs(b, a) at once deadlock.
func swapJobs(tx *gorm.DB, from, to int64) error {
	var a, b Job
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&a, from).Error; err != nil {
		return err
	}
	return tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", to).Take(&b).Error // want `row order chosen by the caller: gormrows.swapJobs locks two rows of jobs, first the one keyed by from, then the one keyed by to`
}

// swapJobsOrdered locks the lower key first.
func swapJobsOrdered(tx *gorm.DB, from, to int64) error {
	var a, b Job
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&a, min(from, to)).Error; err != nil {
		return err
	}
	return tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&b, max(from, to)).Error
}

// setStates updates one job per map entry in one transaction.
func setStates(db *gorm.DB, states map[int64]string) error {
	return db.Transaction(func(tx *gorm.DB) error {
		for id, s := range states {
			if err := tx.Model(&Job{}).Where("id = ?", id).Update("state", s).Error; err != nil { // want `lock order set by a loop: rows of jobs \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a map`
				return err
			}
		}
		return nil
	})
}

// forUpdate is the locking clause, kept in a package variable.
var forUpdate = clause.Locking{Strength: "UPDATE"}

// lockBatchShared locks a batch with the shared clause, in no order.
func lockBatchShared(tx *gorm.DB, ids []int64) error {
	var jobs []Job
	return tx.Clauses(forUpdate).Where("id IN ?", ids).Find(&jobs).Error // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of jobs`
}
