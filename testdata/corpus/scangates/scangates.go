package scangates // want package:"sql=true edges=[0-9]+"

// A parent row locked first gates the later statements whose rows are
// chosen within it (README: "A row keyed by a caller's value guards only
// the rows that each statement selects within it"): here the gate is taken
// by a helper of another package, whose query arguments it builds itself,
// or the later statement names the parent by the key scanned from the
// locked row rather than by the value the gate was keyed with. Where the
// later statement's rows are chosen by another value, the gate guards
// nothing and the unordered lock is reported.

import (
	"context"
	"database/sql"

	"corpus/scangates/rowlock"
)

// Service moves items between containers.
type Service struct{ db *sql.DB }

func (s *Service) begin(ctx context.Context) (*sql.Tx, error) { return s.db.BeginTx(ctx, nil) } // want begin:`^returns\(0=L0\(transaction\)\)$`

// Unpack takes some bottles out of their crate: the crate, locked by the
// helper, gates them.
func (s *Service) Unpack(ctx context.Context, crate int64, bottles []int64) error { // want Unpack:`^locks\(table:sg_crates ROW SHARE@C0/L0, row:sg_crates FOR UPDATE@C0/L0, table:sg_bottles ROW EXCLUSIVE@C0/L0, row:sg_bottles FOR NO KEY UPDATE@C0/L0\)$`
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := rowlock.Lock(ctx, tx, "sg_crates", crate); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sg_bottles SET crate_id = NULL WHERE id = ANY($1) AND crate_id = $2", bottles, crate); err != nil {
		return err
	}
	return tx.Commit()
}

// Repack locks one crate and moves bottles out of another: the lock gates
// nothing of the other crate's.
func (s *Service) Repack(ctx context.Context, into, from int64, bottles []int64) error { // want Repack:`^locks\(table:sg_crates ROW SHARE@C0/L0, row:sg_crates FOR UPDATE@C0/L0, table:sg_bottles ROW EXCLUSIVE@C0/L0, row:sg_bottles FOR NO KEY UPDATE@C0/L0\)$`
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := rowlock.Lock(ctx, tx, "sg_crates", into); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sg_bottles SET crate_id = $3 WHERE id = ANY($1) AND crate_id = $2", bottles, from, into); err != nil { // want `unordered multi-row lock: UPDATE takes rows of sg_bottles`
		return err
	}
	return tx.Commit()
}

// Pallet is a row of sg_pallets.
type Pallet struct {
	ID    int64
	Depot int64
}

// Strip takes cartons off their pallet, named by the id scanned from the
// locked pallet row.
func (s *Service) Strip(ctx context.Context, pallet int64, cartons []int64) error { // want Strip:`^locks\(table:sg_pallets ROW SHARE@C0/L0, row:sg_pallets FOR UPDATE@C0/L0, table:sg_cartons ROW EXCLUSIVE@C0/L0, row:sg_cartons FOR NO KEY UPDATE@C0/L0\)$`
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var p Pallet
	if err := tx.QueryRowContext(ctx, "SELECT id, depot_id FROM sg_pallets WHERE id = $1 FOR UPDATE", pallet).Scan(&p.ID, &p.Depot); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sg_cartons SET pallet_id = NULL WHERE id = ANY($1) AND pallet_id = $2", cartons, p.ID); err != nil {
		return err
	}
	return tx.Commit()
}

// Restock updates cartons of the pallet's depot: the depot is a column the
// pallet row holds, not the pallet's key, and its rows are not the
// pallet's.
func (s *Service) Restock(ctx context.Context, pallet int64, cartons []int64) error { // want Restock:`^locks\(table:sg_pallets ROW SHARE@C0/L0, row:sg_pallets FOR UPDATE@C0/L0, table:sg_cartons ROW EXCLUSIVE@C0/L0, row:sg_cartons FOR NO KEY UPDATE@C0/L0\)$`
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var p Pallet
	if err := tx.QueryRowContext(ctx, "SELECT id, depot_id FROM sg_pallets WHERE id = $1 FOR UPDATE", pallet).Scan(&p.ID, &p.Depot); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sg_cartons SET stocked = true WHERE id = ANY($1) AND depot_id = $2", cartons, p.Depot); err != nil { // want `unordered multi-row lock: UPDATE takes rows of sg_cartons`
		return err
	}
	return tx.Commit()
}

// Drain empties a tank's valves, named by the id scanned into a variable.
func (s *Service) Drain(ctx context.Context, tank int64, valves []int64) error { // want Drain:`^locks\(table:sg_tanks ROW SHARE@C0/L0, row:sg_tanks FOR UPDATE@C0/L0, table:sg_valves ROW EXCLUSIVE@C0/L0, row:sg_valves FOR NO KEY UPDATE@C0/L0\)$`
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var id int64
	if err := tx.QueryRowContext(ctx, "SELECT id FROM sg_tanks WHERE id = $1 FOR UPDATE", tank).Scan(&id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sg_valves SET open = true WHERE id = ANY($1) AND tank_id = $2", valves, id); err != nil {
		return err
	}
	return tx.Commit()
}

// Split moves some parcels of a shipment, locked and read by a helper of
// another package, to no shipment.
func (s *Service) Split(ctx context.Context, shipment int64, parcels []int64) error { // want Split:`^locks\(table:sg_shipments ROW SHARE@C0/L0, row:sg_shipments FOR UPDATE@C0/L0, table:sg_parcels ROW EXCLUSIVE@C0/L0, row:sg_parcels FOR NO KEY UPDATE@C0/L0\)$`
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var sh rowlock.Shipment
	if err := rowlock.LockShipment(ctx, tx, shipment, &sh); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sg_parcels SET shipment_id = NULL WHERE id = ANY($1) AND shipment_id = $2", parcels, sh.ID); err != nil {
		return err
	}
	return tx.Commit()
}
