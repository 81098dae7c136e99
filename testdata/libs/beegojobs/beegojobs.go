package beegojobs // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/beego/beego/v2/client/orm"
)

// Claim locks the job, then the account, in a transaction that DoTx runs
// its callback in.
func Claim(o orm.Ormer, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR NO KEY UPDATE@L0\)`
	return o.DoTx(func(ctx context.Context, txOrm orm.TxOrmer) error {
		if _, err := txOrm.Raw("SELECT id FROM jobs WHERE id = ? FOR UPDATE", id).Exec(); err != nil {
			return err
		}
		_, err := txOrm.Raw("UPDATE accounts SET balance = balance - 1 WHERE id = ?", id).Exec()
		return err
	})
}

// Refund updates the account, then locks the job, in a transaction it
// begins itself, through a helper that takes either handle.
func Refund(ctx context.Context, o orm.Ormer, id int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0, .*row:jobs FOR UPDATE@L0\)`
	tx, err := o.BeginWithCtx(ctx)
	if err != nil {
		return err
	}
	if err := debit(tx, id); err != nil {
		_ = tx.Rollback()
		return err
	}
	var got int64
	if err := tx.Raw("SELECT id FROM jobs WHERE id = ? FOR UPDATE", id).QueryRow(&got); err != nil { // want `(?s)lock-order inversion: rows of accounts and rows of jobs.*path 1: beegojobs.Refund holds.*calls beegojobs.debit\n +beegojobs/beegojobs.go:\d+:\d+: UPDATE in a transaction, run by \(orm.RawSeter\).Exec \(in beegojobs.debit\)\n +then waits: +beegojobs/beegojobs.go:\d+:\d+: SELECT \.\.\. FOR UPDATE in a transaction, run by \(orm.RawSeter\).QueryRow\n.*path 2: beegojobs.Claim holds`
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// debit runs on whatever handle it is given.
func debit(q orm.QueryExecutor, id int64) error {
	_, err := q.Raw("UPDATE accounts SET balance = balance - 1 WHERE id = ?").SetArgs(id).Exec()
	return err
}

// Report reads both tables on the pool, in autocommit mode: it holds
// nothing (a near miss).
func Report(o orm.Ormer, id int64) error { // want Report:`locks\(.*row:accounts FOR UPDATE@p0, .*row:jobs FOR UPDATE@p0\)`
	var rows []orm.Params
	if _, err := o.Raw("SELECT * FROM accounts WHERE id = ? FOR UPDATE", id).Values(&rows); err != nil {
		return err
	}
	_, err := o.Raw("SELECT * FROM jobs WHERE id = ? FOR UPDATE", id).Values(&rows)
	return err
}
