package bunjobs // want package:"sql=true edges=12"

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"
)

// Job is a row of work_jobs, named by its bun.BaseModel tag.
type Job struct {
	bun.BaseModel `bun:"table:work_jobs,alias:j"`

	ID        int64
	AccountID int64
}

// Account is a row of accounts (bun's default name for the model).
type Account struct {
	ID      int64
	Balance int64
}

// Store keeps jobs and accounts with bun.
type Store struct {
	db *bun.DB
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:work_jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	return s.db.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		j := new(Job)
		if err := tx.NewSelect().Model(j).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			return err
		}
		_, err := tx.NewUpdate().Model((*Account)(nil)).Set("balance = balance - 1").Where("id = ?", j.AccountID).Exec(ctx)
		return err
	})
}

// Refund credits the account, then locks its jobs: the opposite order.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:work_jobs FOR UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.NewUpdate().Table("accounts").Set("balance = balance + 1").Where("id = ?", accountID).Exec(ctx); err != nil {
		return err
	}
	var jobs []Job
	if err := tx.NewSelect().Model(&jobs).Where("account_id = ?", accountID).For("UPDATE").Scan(ctx); err != nil { // want `lock-order inversion: rows of accounts and rows of work_jobs are locked in opposite orders`
		return err
	}
	return tx.Commit()
}
