package beegov1 // want package:"sql=true edges=[0-9]+"

import "github.com/astaxie/beego/orm"

// Move locks the source bin, then the target bin, in the transaction its
// Ormer began.
func Move(id int64) error { // want Move:`locks\(.*row:bins FOR UPDATE@L0, .*row:shelves FOR NO KEY UPDATE@L0\)`
	o := orm.NewOrm()
	if err := o.Begin(); err != nil {
		return err
	}
	if _, err := o.Raw("SELECT id FROM bins WHERE id = ? FOR UPDATE", id).Exec(); err != nil {
		_ = o.Rollback()
		return err
	}
	if _, err := o.Raw("UPDATE shelves SET n = n + 1 WHERE id = ?", id).Exec(); err != nil { // want `(?s)lock-order inversion: rows of bins and rows of shelves.*path 1: beegov1.Move holds.*UPDATE in a transaction, run by \(orm.RawSeter\).Exec\n.*path 2: beegov1.Restock holds.*calls beegov1.shelve\n +beegov1/beegov1.go:\d+:\d+: UPDATE in a transaction, run by \(orm.RawSeter\).Exec \(in beegov1.shelve\)`
		_ = o.Rollback()
		return err
	}
	return o.Commit()
}

// Restock updates the shelf, then locks the bin: the opposite order.
func Restock(id int64) error { // want Restock:`locks\(.*row:shelves FOR NO KEY UPDATE@L0, .*row:bins FOR UPDATE@L0\)`
	o := orm.NewOrm()
	if err := o.Begin(); err != nil {
		return err
	}
	if err := shelve(o, id); err != nil {
		_ = o.Rollback()
		return err
	}
	if _, err := o.Raw("SELECT id FROM bins WHERE id = ? FOR UPDATE", id).Exec(); err != nil {
		_ = o.Rollback()
		return err
	}
	return o.Commit()
}

// shelve runs in the caller's transaction.
func shelve(o orm.Ormer, id int64) error {
	_, err := o.Raw("UPDATE shelves SET n = n + 1 WHERE id = ?", id).Exec()
	return err
}

// Count runs outside a transaction: nothing is held (a near miss).
func Count(id int64) error { // want Count:`locks\(.*row:shelves FOR NO KEY UPDATE@L0, .*row:bins FOR UPDATE@L0\)`
	o := orm.NewOrm()
	if _, err := o.Raw("UPDATE shelves SET n = n + 1 WHERE id = ?", id).Exec(); err != nil {
		return err
	}
	_, err := o.Raw("SELECT id FROM bins WHERE id = ? FOR UPDATE", id).Exec()
	return err
}
