// Package postgres implements the ports with pgx.
package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"program/ports/domain"
)

// querier is a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

type shipments struct{ q querier }

func (s *shipments) Lock(ctx context.Context, id int64) error {
	_, err := s.q.Exec(ctx, "SELECT 1 FROM shipments WHERE id = $1 FOR UPDATE", id)
	return err
}

type parcels struct{ q querier }

func (p *parcels) Lock(ctx context.Context, id int64) error {
	_, err := p.q.Exec(ctx, "SELECT 1 FROM parcels WHERE id = $1 FOR UPDATE", id)
	return err
}

func (p *parcels) MoveAll(ctx context.Context, shipment int64) error {
	_, err := p.q.Exec(ctx, "UPDATE parcels SET shipment_id = NULL WHERE shipment_id = $1", shipment)
	return err
}

// repos binds every repository to q.
func repos(q querier) domain.Repos {
	return domain.Repos{Shipments: &shipments{q: q}, Parcels: &parcels{q: q}}
}

// UOW is the unit of work.
type UOW struct{ Pool *pgxpool.Pool }

// Do runs fn in a transaction.
func (u *UOW) Do(ctx context.Context, fn func(ctx context.Context, r domain.Repos) error) error {
	return pgx.BeginFunc(ctx, u.Pool, func(tx pgx.Tx) error { return fn(ctx, repos(tx)) })
}
