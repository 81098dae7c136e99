package gormjobs // want package:"sql=true edges=50"

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Shipment is a row of shipments.
type Shipment struct{ ID int64 }

// Parcel is a row of parcels.
type Parcel struct{ ID int64 }

// Repo is bound to the pool, or through WithTx to a transaction; its
// methods reach the handle through one accessor.
type Repo struct{ db *gorm.DB }

// WithTx binds the repository to tx.
func (r *Repo) WithTx(tx *gorm.DB) *Repo { return &Repo{db: tx} } // want WithTx:`^returns\(0\.db=p1\(handle\)\)$`

// q is the accessor: the chain each method builds starts here.
func (r *Repo) q(ctx context.Context) *gorm.DB { return r.db.WithContext(ctx) } // want q:`^returns\(0=p0\.db\(handle\)\)$`

// LockShipment locks one shipment.
func (r *Repo) LockShipment(ctx context.Context, id int64) error { // want LockShipment:`^locks\(table:shipments ROW SHARE@p0\.db, row:shipments FOR UPDATE@p0\.db\)`
	var s Shipment
	return r.q(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).First(&s, id).Error
}

// LockParcel locks one parcel.
func (r *Repo) LockParcel(ctx context.Context, id int64) error { // want LockParcel:`^locks\(table:parcels ROW SHARE@p0\.db, row:parcels FOR UPDATE@p0\.db\)`
	var p Parcel
	return r.q(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).First(&p, id).Error
}

// Shipping runs its work in transactions over a bound repository.
type Shipping struct {
	DB   *gorm.DB
	Repo *Repo
}

func (s *Shipping) tx(ctx context.Context, fn func(r *Repo) error) error { // want tx:`^invokes\(p2\(0\.db=L0\(transaction\)\)\)$`
	return s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(s.Repo.WithTx(tx))
	})
}

// Pack locks the shipment, then a parcel.
func (s *Shipping) Pack(ctx context.Context, shipment, parcel int64) error { // want Pack:`locks\(.*row:shipments FOR UPDATE.*row:parcels FOR UPDATE`
	return s.tx(ctx, func(r *Repo) error {
		if err := r.LockShipment(ctx, shipment); err != nil {
			return err
		}
		return r.LockParcel(ctx, parcel)
	})
}

// Unpack locks a parcel, then the shipment: against Pack.
func (s *Shipping) Unpack(ctx context.Context, shipment, parcel int64) error { // want Unpack:`locks\(.*row:parcels FOR UPDATE.*row:shipments FOR UPDATE`
	return s.tx(ctx, func(r *Repo) error {
		if err := r.LockParcel(ctx, parcel); err != nil {
			return err
		}
		return r.LockShipment(ctx, shipment) // want `lock-order inversion: rows of parcels and rows of shipments are locked in opposite orders`
	})
}

// Crate is a row of crates.
type Crate struct{ ID int64 }

// Pallet is a row of pallets.
type Pallet struct{ ID int64 }

// LockCrate locks one crate through the accessor.
func (r *Repo) LockCrate(ctx context.Context, id int64) error { // want LockCrate:`^locks\(table:crates ROW SHARE@p0\.db, row:crates FOR UPDATE@p0\.db\)`
	var c Crate
	return r.q(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).First(&c, id).Error
}

// LockPallet locks one pallet through the accessor.
func (r *Repo) LockPallet(ctx context.Context, id int64) error { // want LockPallet:`^locks\(table:pallets ROW SHARE@p0\.db, row:pallets FOR UPDATE@p0\.db\)`
	var p Pallet
	return r.q(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).First(&p, id).Error
}

// Load and Unload both lock the crate first: one order, silent.
func (s *Shipping) Load(ctx context.Context, crate, pallet int64) error { // want Load:`^locks\(table:crates ROW SHARE@C0/L0, row:crates FOR UPDATE@C0/L0, table:pallets`
	return s.tx(ctx, func(r *Repo) error {
		if err := r.LockCrate(ctx, crate); err != nil {
			return err
		}
		return r.LockPallet(ctx, pallet)
	})
}

// Unload keeps Load's order.
func (s *Shipping) Unload(ctx context.Context, crate, pallet int64) error { // want Unload:`^locks\(table:crates ROW SHARE@C0/L0, row:crates FOR UPDATE@C0/L0, table:pallets`
	return s.tx(ctx, func(r *Repo) error {
		if err := r.LockCrate(ctx, crate); err != nil {
			return err
		}
		return r.LockPallet(ctx, pallet)
	})
}
