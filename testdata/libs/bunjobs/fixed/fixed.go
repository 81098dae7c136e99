package fixed // want package:"sql=true edges=13"

import (
	"context"

	"github.com/uptrace/bun"
)

// Job is a row of jobs (bun's default name for the model).
type Job struct {
	ID        int64
	AccountID int64
}

// Store keeps jobs and accounts with bun.
type Store struct {
	db *bun.DB
}

// Claim locks the job, then charges its account, through bun.IDB.
func Claim(ctx context.Context, db bun.IDB, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		j := new(Job)
		if err := tx.NewSelect().Model(j).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			return err
		}
		_, err := tx.NewUpdate().ModelTableExpr("accounts AS a").Set("balance = balance - 1").Where("id = ?", j.AccountID).Exec(ctx)
		return err
	})
}

// Refund locks the account's jobs first too, then credits the account.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var jobs []Job
	if err := tx.NewSelect().Model(&jobs).Where("account_id = ?", accountID).For("UPDATE").Scan(ctx); err != nil {
		return err
	}
	if _, err := tx.NewRaw("UPDATE accounts SET balance = balance + 1 WHERE id = ?", accountID).Exec(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// Sweep deletes a job on the pool, in autocommit mode.
func (s *Store) Sweep(ctx context.Context, id int64) error { // want Sweep:`locks\(table:jobs ROW EXCLUSIVE@p0.db, row:jobs FOR UPDATE@p0.db\)$`
	_, err := s.db.NewDelete().Model((*Job)(nil)).Where("id = ?", id).Exec(ctx)
	return err
}
