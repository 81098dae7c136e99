// Package store runs its queries through scany's pgxscan, a library the
// command does not analyse from source: its Get and Select are modelled.
package store

import (
	"context"

	"github.com/georgysavva/scany/v2/pgxscan"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Job is a row of jobs.
type Job struct {
	ID        int64
	AccountID int64
}

// Store keeps jobs, accounts and wallets.
type Store struct {
	Pool *pgxpool.Pool
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, id int64) error {
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		var j Job
		if err := pgxscan.Get(ctx, tx, &j, "SELECT id, account_id FROM jobs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", j.AccountID)
		return err
	})
}

// Refund credits the account, then locks its jobs: the opposite order.
func (s *Store) Refund(ctx context.Context, accountID int64) error {
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", accountID); err != nil {
			return err
		}
		var jobs []Job
		return pgxscan.Select(ctx, tx, &jobs, "SELECT id, account_id FROM jobs WHERE account_id = $1 FOR UPDATE", accountID) // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
	})
}

// Transfer locks both wallets in key order with pgxscan.Get, then moves the
// money in the caller's order: the rows are already locked. Silent.
func (s *Store) Transfer(ctx context.Context, from, to, amount int64) error {
	return pgx.BeginFunc(ctx, s.Pool, func(tx pgx.Tx) error {
		var id int64
		if err := pgxscan.Get(ctx, tx, &id, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", min(from, to)); err != nil {
			return err
		}
		if err := pgxscan.Get(ctx, tx, &id, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", max(from, to)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance + $2 WHERE id = $1", to, amount)
		return err
	})
}
