package goqujobs // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"database/sql"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

var pg = goqu.Dialect("postgres")

// Job is a row of jobs.
type Job struct {
	ID        int64 `db:"id"`
	AccountID int64 `db:"account_id"`
}

// Store keeps jobs and accounts with goqu.
type Store struct {
	db  *sql.DB
	gdb *goqu.Database
}

// Claim locks the job, then charges its account: datasets rendered by
// ToSQL and run with database/sql.
func (s *Store) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args, err := pg.From("jobs").Select("account_id").
		Where(goqu.C("id").Eq(id)).
		ForUpdate(exp.Wait).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	var accountID int64
	if err := tx.QueryRowContext(ctx, q, args...).Scan(&accountID); err != nil {
		return err
	}
	q, args, err = pg.Update("accounts").Set(goqu.Record{"balance": goqu.L("balance - 1")}).
		Where(goqu.Ex{"id": accountID}).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund credits the account, then locks its jobs: the opposite order,
// run on goqu's own transaction (WithTx) through the datasets.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:jobs FOR UPDATE@L0`
	return s.gdb.WithTx(func(tx *goqu.TxDatabase) error {
		if _, err := tx.Update(goqu.T("accounts")).Set(goqu.Record{"balance": goqu.L("balance + 1")}).
			Where(goqu.I("id").Eq(accountID)).Executor().ExecContext(ctx); err != nil {
			return err
		}
		var jobs []Job
		return tx.From(goqu.T("jobs").As("j")).
			Where(goqu.Ex{"account_id": accountID}).
			ForUpdate(exp.Wait).ScanStructsContext(ctx, &jobs) // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
	})
}
