package fixed // want package:"sql=true edges=[0-9]+"

// The fixed twin of svc: both paths lock the job first.

import (
	"context"

	"libs/userrules/port"
	"libs/userrules/portimpl"
)

// Service runs on the ports.
type Service struct {
	Store port.Store
	Tx    port.TxRunner
}

// Claim locks the job, then the account, in one transaction.
func (s *Service) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR UPDATE@L0\)`
	return s.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.Store.Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return s.Store.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	})
}

// Refund locks the job first too, on the implementation itself.
func Refund(ctx context.Context, db *portimpl.DB, id int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR UPDATE@L0\)`
	return db.InTx(ctx, func(ctx context.Context) error {
		if err := db.Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return db.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	})
}
