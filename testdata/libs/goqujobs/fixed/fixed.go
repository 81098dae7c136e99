package fixed // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

// Store keeps jobs and accounts with goqu.
type Store struct {
	gdb *goqu.Database
}

// Claim locks the job, then charges its account, in a transaction begun
// on goqu's database.
func (s *Store) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.gdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var accountID int64
	if _, err := tx.From("jobs").Select("account_id").Where(goqu.C("id").Eq(id)).
		ForUpdate(exp.Wait).ScanValContext(ctx, &accountID); err != nil {
		return err
	}
	if _, err := tx.Update("accounts").Set(goqu.Record{"balance": goqu.L("balance - 1")}).
		Where(goqu.C("id").Eq(accountID)).Executor().ExecContext(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund locks the account's jobs first, then credits it: the same order.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	return s.gdb.WithTx(func(tx *goqu.TxDatabase) error {
		var ids []int64
		if err := tx.From("jobs").Select("id").Where(goqu.Ex{"account_id": accountID}).
			ForUpdate(exp.Wait).ScanValsContext(ctx, &ids); err != nil {
			return err
		}
		_, err := tx.Update("accounts").Set(goqu.Record{"balance": goqu.L("balance + 1")}).
			Where(goqu.C("id").Eq(accountID)).Executor().ExecContext(ctx)
		return err
	})
}

// Touch updates an account on the pool (autocommit): it holds nothing.
func (s *Store) Touch(ctx context.Context, id int64) error { // want Touch:`locks\(.*row:accounts FOR NO KEY UPDATE@p0.gdb`
	_, err := s.gdb.Update("accounts").Set(goqu.Record{"touched_at": goqu.L("now()")}).
		Where(goqu.C("id").Eq(id)).Executor().ExecContext(ctx)
	return err
}
