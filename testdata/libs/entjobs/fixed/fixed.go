package fixed // want package:"sql=true edges=13"

import (
	"context"

	"libs/entjobs/ent"
	"libs/entjobs/ent/job"
)

// Store keeps jobs and accounts with ent.
type Store struct {
	client *ent.Client
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, id int) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	j, err := tx.Job.Query().Where(job.ID(id)).ForUpdate().Only(ctx)
	if err != nil {
		return err
	}
	if err := tx.Account.UpdateOneID(int(j.AccountID)).AddBalance(-1).Exec(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund locks the account's jobs first too, then credits the account.
func (s *Store) Refund(ctx context.Context, accountID int) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Job.Query().Where(job.AccountID(int64(accountID))).ForUpdate().IDs(ctx); err != nil {
		return err
	}
	if _, err := tx.Account.Update().AddBalance(1).Save(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// Sweep deletes a job on the client's pool, in autocommit mode.
func (s *Store) Sweep(ctx context.Context, id int) error { // want Sweep:`locks\(table:jobs ROW EXCLUSIVE@p0.client, row:jobs FOR UPDATE@p0.client\)$`
	return s.client.Job.DeleteOneID(id).Exec(ctx)
}
