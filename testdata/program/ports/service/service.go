// Package service uses the ports only.
package service

import (
	"context"

	"program/ports/domain"
)

// Dispatch moves parcels between shipments.
type Dispatch struct{ UOW domain.UnitOfWork }

// Scan locks a parcel, then its shipment.
func (d *Dispatch) Scan(ctx context.Context, parcel, shipment int64) error {
	return d.UOW.Do(ctx, func(ctx context.Context, r domain.Repos) error {
		if err := r.Parcels.Lock(ctx, parcel); err != nil {
			return err
		}
		return r.Shipments.Lock(ctx, shipment)
	})
}

// Cancel locks the shipment, then moves its parcels out: against Scan.
func (d *Dispatch) Cancel(ctx context.Context, shipment int64) error {
	return d.UOW.Do(ctx, func(ctx context.Context, r domain.Repos) error { // want `lock-order inversion: rows of parcels and rows of shipments are locked in opposite orders`
		if err := r.Shipments.Lock(ctx, shipment); err != nil {
			return err
		}
		return r.Parcels.MoveAll(ctx, shipment)
	})
}

// Split locks the shipment and the parcel in two units of work: the first
// commits before the second begins.
func (d *Dispatch) Split(ctx context.Context, parcel, shipment int64) error {
	if err := d.UOW.Do(ctx, func(ctx context.Context, r domain.Repos) error { return r.Shipments.Lock(ctx, shipment) }); err != nil {
		return err
	}
	return d.UOW.Do(ctx, func(ctx context.Context, r domain.Repos) error { return r.Parcels.Lock(ctx, parcel) })
}

// Deliver locks the parcel, then its shipment, as Scan does.
func (d *Dispatch) Deliver(ctx context.Context, parcel, shipment int64) error {
	return d.UOW.Do(ctx, func(ctx context.Context, r domain.Repos) error {
		if err := r.Parcels.Lock(ctx, parcel); err != nil {
			return err
		}
		return r.Shipments.Lock(ctx, shipment)
	})
}
