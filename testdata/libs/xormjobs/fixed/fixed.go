package fixed // want package:"sql=true edges=13"

import (
	"xorm.io/xorm"
)

// Job is a row of job.
type Job struct {
	ID        int64
	AccountID int64
}

// Store keeps jobs and accounts with xorm.
type Store struct {
	engine *xorm.Engine
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(id int64) error { // want Claim:`locks\(.*row:job FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	sess := s.engine.NewSession()
	defer sess.Close()
	if err := sess.Begin(); err != nil {
		return err
	}
	var j Job
	if _, err := sess.Table(&Job{}).ID(id).ForUpdate().Get(&j); err != nil {
		return err
	}
	if _, err := sess.Exec("UPDATE accounts SET balance = balance - 1 WHERE id = ?", j.AccountID); err != nil {
		return err
	}
	return sess.Commit()
}

// Refund locks the account's jobs first too, then credits the account.
func (s *Store) Refund(accountID int64) error { // want Refund:`locks\(.*row:job FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	_, err := s.engine.Transaction(func(sess *xorm.Session) (any, error) {
		var jobs []Job
		if err := sess.In("account_id", accountID).OrderBy("id").ForUpdate().Find(&jobs); err != nil {
			return nil, err
		}
		_, err := sess.Exec("UPDATE accounts SET balance = balance + 1 WHERE id = ?", accountID)
		return nil, err
	})
	return err
}

// Sweep deletes a job on the engine's pool: autocommit, nothing held.
func (s *Store) Sweep(id int64) error { // want Sweep:`locks\(table:job ROW EXCLUSIVE@p0.engine, row:job FOR UPDATE@p0.engine\)$`
	_, err := s.engine.ID(id).Delete(&Job{})
	return err
}
