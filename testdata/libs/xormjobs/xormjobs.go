package xormjobs // want package:"sql=true edges=14"

import (
	"xorm.io/xorm"
)

// Job is a row of job (xorm's default mapper does not pluralise).
type Job struct {
	ID        int64
	AccountID int64
}

// Account is a row of accounts: its TableName says so.
type Account struct {
	ID      int64
	Balance int64
}

// TableName overrides xorm's default table name.
func (Account) TableName() string { return "accounts" } // want TableName:`table\("accounts"\)`

// lockJob locks a job on the caller's session: in Claim, the session's
// transaction.
func lockJob(sess *xorm.Session, id int64) (*Job, error) {
	j := new(Job)
	_, err := sess.ID(id).ForUpdate().Get(j)
	return j, err
}

// Store keeps jobs and accounts with xorm.
type Store struct {
	engine *xorm.Engine
}

// Claim locks the job, then charges its account, in a session transaction.
func (s *Store) Claim(id int64) error { // want Claim:`locks\(.*row:job FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	sess := s.engine.NewSession()
	defer sess.Close()
	if err := sess.Begin(); err != nil {
		return err
	}
	j, err := lockJob(sess, id)
	if err != nil {
		return err
	}
	if _, err := sess.Table("accounts").Where("id = ?", j.AccountID).Update(map[string]any{"balance": 0}); err != nil {
		return err
	}
	return sess.Commit()
}

// Refund credits the account, then locks its jobs, in a transaction xorm
// runs the callback in: the opposite order.
func (s *Store) Refund(accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:job FOR UPDATE@L0`
	_, err := s.engine.Transaction(func(sess *xorm.Session) (any, error) {
		if _, err := sess.Exec("UPDATE accounts SET balance = balance + 1 WHERE id = ?", accountID); err != nil {
			return nil, err
		}
		var jobs []Job
		return nil, sess.Where("account_id = ?", accountID).ForUpdate().Find(&jobs) // want `lock-order inversion: rows of accounts and rows of job are locked in opposite orders`
	})
	return err
}

// Hold is a row of hold: the holds of one job.
type Hold struct {
	ID    int64
	JobID int64
	Owner string `xorm:"'holder'"`
}

// ReleaseHolds locks the holds of one job: xorm filters by the condition
// bean's fields that are set, so the rows are those of one job_id, taken in
// the one order of that predicate's plan.
func (s *Store) ReleaseHolds(jobID int64) error { // want ReleaseHolds:`^locks\(table:hold ROW SHARE@L0, row:hold FOR UPDATE@L0\)$`
	_, err := s.engine.Transaction(func(sess *xorm.Session) (any, error) {
		var holds []Hold
		return nil, sess.ForUpdate().Find(&holds, &Hold{JobID: jobID})
	})
	return err
}

// ReleaseAll locks every hold: the condition bean has no field set, so
// the statement has no WHERE clause.
func (s *Store) ReleaseAll() error { // want ReleaseAll:`^locks\(table:hold ROW SHARE@L0, row:hold FOR UPDATE@L0\)$`
	_, err := s.engine.Transaction(func(sess *xorm.Session) (any, error) {
		var holds []Hold
		return nil, sess.ForUpdate().Find(&holds, &Hold{JobID: 0}) // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of hold \(FOR UPDATE\), several of them \(no WHERE clause\)`
	})
	return err
}
