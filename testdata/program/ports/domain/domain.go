// Package domain declares the ports: repositories, and a unit of work that
// hands its callback a struct of them, all bound to one transaction.
package domain

import "context"

// Shipments locks shipments.
type Shipments interface {
	Lock(ctx context.Context, id int64) error
}

// Parcels locks parcels.
type Parcels interface {
	Lock(ctx context.Context, id int64) error
	MoveAll(ctx context.Context, shipment int64) error
}

// Repos are the repositories of one unit of work.
type Repos struct {
	Shipments Shipments
	Parcels   Parcels
}

// UnitOfWork runs fn in one transaction.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context, r Repos) error) error
}
