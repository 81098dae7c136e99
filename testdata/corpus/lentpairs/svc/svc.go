package svc // want package:"sql=true edges=[0-9]+"

// The callers of the store: each begins the transaction and takes the
// account's advisory gate first, except Release.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/lentpairs/store"
)

// Service runs the store's functions in transactions.
type Service struct{ pool *pgxpool.Pool }

func (s *Service) gated(ctx context.Context, id int64, f func(context.Context, pgx.Tx, int64) error) error { // want gated:`^locks\(advisory:`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1, $1)", id); err != nil {
		return err
	}
	if err := f(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Credit and Debit run behind the gate: the two orders never interleave.
func (s *Service) Credit(ctx context.Context, id int64) error { // want Credit:`^locks\(advisory:`
	return s.gated(ctx, id, store.CreditDebit)
}

func (s *Service) Debit(ctx context.Context, id int64) error { // want Debit:`^locks\(advisory:`
	return s.gated(ctx, id, store.DebitCredit)
}

// Hold runs behind the gate.
func (s *Service) Hold(ctx context.Context, id int64) error { // want Hold:`^locks\(advisory:`
	return s.gated(ctx, id, store.HoldRelease)
}

// Release takes no gate: against Hold, the two orders deadlock.
func (s *Service) Release(ctx context.Context, id int64) error { // want Release:`^locks\(table:lp_releases `
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := store.ReleaseHold(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// inTx runs fn in a transaction behind the account's gate.
func (s *Service) inTx(ctx context.Context, id int64, fn func(pgx.Tx) error) error { // want inTx:`^locks\(advisory:`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1, $1)", id); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Settle and Payout call the store from callbacks the runner runs behind
// the gate: silent in the command too.
func (s *Service) Settle(ctx context.Context, id int64) error { // want Settle:`^locks\(advisory:`
	return s.inTx(ctx, id, func(tx pgx.Tx) error { return store.SettlePayout(ctx, tx, id) })
}

func (s *Service) Payout(ctx context.Context, id int64) error { // want Payout:`^locks\(advisory:`
	return s.inTx(ctx, id, func(tx pgx.Tx) error { return store.PayoutSettle(ctx, tx, id) })
}
