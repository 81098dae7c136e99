package svc // want package:"sql=true edges=[0-9]+"

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

// Refund locks the account, then the job, on the implementation itself.
func Refund(ctx context.Context, db *portimpl.DB, id int64) error { // want Refund:`locks\(.*row:accounts FOR UPDATE@L0, .*row:jobs FOR UPDATE@L0\)`
	return db.InTx(ctx, func(ctx context.Context) error {
		if err := db.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return db.Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id) // want `(?s)lock-order inversion: rows of accounts and rows of jobs.*path 1: svc.Refund holds.*SELECT \.\.\. FOR UPDATE in a transaction \(in svc.Refund.func1\).*path 2: svc.Service.Claim holds.*svc.go:\d+:\d+: SELECT \.\.\. FOR UPDATE in a transaction \(in svc.Service.Claim.func1\)`
	})
}

// Peek runs the same statements outside any transaction: each runs on its
// own, nothing is held between them (a near miss of Refund).
func (s *Service) Peek(ctx context.Context, id int64) error { // want Peek:`locks\(.*row:jobs FOR UPDATE@p1.ctx\$tx, .*row:accounts FOR UPDATE@p1.ctx\$tx\)`
	if err := s.Store.Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	return s.Store.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
}

// Logger takes text and arguments too, but no rule declares it: what it
// is given is not SQL (a near miss of port.Store).
type Logger interface {
	Log(ctx context.Context, msg string, args ...any) error
}

// Audit logs in the runner's transaction, in the order opposite to Claim:
// the log lines lock nothing.
func (s *Service) Audit(ctx context.Context, log Logger, id int64) error {
	return s.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := log.Log(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		return log.Log(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id)
	})
}
