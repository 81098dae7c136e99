package fixed // want package:"sql=true edges=[0-9]+"

// The fixed twin of beegojobs: both paths lock the job first.

import (
	"context"

	"github.com/beego/beego/v2/client/orm"
)

// Claim locks the job, then the account.
func Claim(o orm.Ormer, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR NO KEY UPDATE@L0\)`
	return o.DoTx(func(ctx context.Context, txOrm orm.TxOrmer) error {
		if _, err := txOrm.Raw("SELECT id FROM jobs WHERE id = ? FOR UPDATE", id).Exec(); err != nil {
			return err
		}
		_, err := txOrm.Raw("UPDATE accounts SET balance = balance - 1 WHERE id = ?", id).Exec()
		return err
	})
}

// Refund locks the job first too.
func Refund(ctx context.Context, o orm.Ormer, id int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR NO KEY UPDATE@L0\)`
	tx, err := o.BeginWithCtx(ctx)
	if err != nil {
		return err
	}
	var got int64
	if err := tx.Raw("SELECT id FROM jobs WHERE id = ? FOR UPDATE", id).QueryRow(&got); err != nil {
		_ = tx.Rollback()
		return err
	}
	if _, err := tx.Raw("UPDATE accounts SET balance = balance - 1 WHERE id = ?", id).Exec(); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
