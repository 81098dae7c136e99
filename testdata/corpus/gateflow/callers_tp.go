package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Gates held by callers that do not serialise the helper's pairs: each is
// still reported.

// shiftBins locks the bins, then the racks, on its caller's transaction.
func shiftBins(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_bins SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_racks SET n = n + 1 WHERE id = 1") // want `(?s)lock-order inversion: rows of gf_bins and rows of gf_racks.*path 1: gateflow.shiftBins holds rows of gf_bins.*without first taking advisory lock \(930\)`
	return err
}

// GatedShift calls shiftBins behind the gate.
func GatedShift(ctx context.Context, tx pgx.Tx) error { // want GatedShift:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	return shiftBins(ctx, tx)
}

// QuickShift calls it without the gate: shiftBins is gated only for some
// of its callers.
func QuickShift(ctx context.Context, tx pgx.Tx) error { // want QuickShift:`^locks\(table:gf_bins ROW EXCLUSIVE@p1, `
	return shiftBins(ctx, tx)
}

// Rack locks the racks, then the bins, behind the gate: against QuickShift.
func Rack(ctx context.Context, tx pgx.Tx) error { // want Rack:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_racks SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_bins SET n = n - 1 WHERE id = 1")
	return err
}

// tally locks the tallies on its caller's transaction.
func tally(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "UPDATE gf_tallies SET n = n + 1 WHERE id = 1")
	return err
}

// LateCount locks the counts, then takes the gate, then calls tally: the
// gate comes after the first lock of the pair.
func LateCount(ctx context.Context, tx pgx.Tx) error { // want LateCount:`^locks\(table:gf_counts ROW EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE gf_counts SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	return tally(ctx, tx)
}

// Recount locks the tallies, then the counts, behind the gate.
func Recount(ctx context.Context, tx pgx.Tx) error { // want Recount:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_tallies SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_counts SET n = n - 1 WHERE id = 1") // want `(?s)lock-order inversion: advisory lock \(930\) and rows of gf_counts.*gateflow.LateCount holds rows of gf_counts`
	return err
}

// sweep locks the sweeps, then the dust, on its caller's transaction.
func sweep(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_sweeps SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_dust SET n = n + 1 WHERE id = 1")
	return err
}

// Sweep calls sweep behind a shared advisory lock: shared locks do not
// exclude each other, so it is no gate.
func Sweep(ctx context.Context, tx pgx.Tx) error { // want Sweep:`^locks\(advisory:\(931\) shared@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared(931)"); err != nil {
		return err
	}
	return sweep(ctx, tx)
}

// Dust locks the dust, then the sweeps, behind the same shared lock.
func Dust(ctx context.Context, tx pgx.Tx) error { // want Dust:`^locks\(advisory:\(931\) shared@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared(931)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_dust SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_sweeps SET n = n - 1 WHERE id = 1") // want `lock-order inversion: rows of gf_dust and rows of gf_sweeps are locked in opposite orders`
	return err
}

// restack locks the stacks, then the piles, on its caller's transaction.
func restack(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_stacks SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_piles SET n = n + 1 WHERE id = 1")
	return err
}

// Restack takes a transaction advisory lock on the pool (autocommit: it is
// released as the statement ends), then calls restack in a transaction:
// the gate is held in another scope than the pair, that is, not at all.
func (s *Stock) Restack(ctx context.Context) error { // want Restack:`^locks\(advisory:\(932\) exclusive@p0\.pool, `
	if _, err := s.pool.Exec(ctx, "SELECT pg_advisory_xact_lock(932)"); err != nil {
		return err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := restack(ctx, tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Unstack locks the piles, then the stacks, after the same pool statement.
func (s *Stock) Unstack(ctx context.Context) error { // want Unstack:`^locks\(advisory:\(932\) exclusive@p0\.pool, `
	if _, err := s.pool.Exec(ctx, "SELECT pg_advisory_xact_lock(932)"); err != nil {
		return err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE gf_piles SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_stacks SET n = n - 1 WHERE id = 1"); err != nil { // want `lock-order inversion: rows of gf_piles and rows of gf_stacks are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// fill locks the shelves, then the trays, behind every caller's gate.
func fill(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_shelves SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_trays SET n = n + 1 WHERE id = 1")
	return err
}

// Fill is fill's only caller, behind the gate.
func Fill(ctx context.Context, tx pgx.Tx) error { // want Fill:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	return fill(ctx, tx)
}

// Clear locks the trays, then the shelves, without the gate: the gate is
// on one side only.
func Clear(ctx context.Context, tx pgx.Tx) error { // want Clear:`^locks\(table:gf_trays ROW EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE gf_trays SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_shelves SET n = n - 1 WHERE id = 1") // want `(?s)lock-order inversion: rows of gf_shelves and rows of gf_trays.*fix: in gateflow.Clear, take advisory lock \(930\) first`
	return err
}

// MoveCrates is exported: callers in other packages may call it without
// the gate its callers here take.
func MoveCrates(ctx context.Context, tx pgx.Tx) error { // want MoveCrates:`^locks\(table:gf_lids ROW EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE gf_lids SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_nails SET n = n + 1 WHERE id = 1") // want `(?s)lock-order inversion: rows of gf_lids and rows of gf_nails.*gateflow.MoveCrates.*without first taking advisory lock \(930\)`
	return err
}

// Seal calls MoveCrates behind the gate.
func Seal(ctx context.Context, tx pgx.Tx) error { // want Seal:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	return MoveCrates(ctx, tx)
}

// Unseal locks the nails, then the lids, behind the gate.
func Unseal(ctx context.Context, tx pgx.Tx) error { // want Unseal:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_nails SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_lids SET n = n - 1 WHERE id = 1")
	return err
}

// Plan and Replan first lock the zones of a region, in order: several rows,
// no row in particular (two regions lock different ones), so no gate.
func Plan(ctx context.Context, tx pgx.Tx, region int64) error { // want Plan:`^locks\(table:gf_zones ROW SHARE@p1, `
	if _, err := tx.Exec(ctx, "SELECT id FROM gf_zones WHERE region = $1 ORDER BY id FOR UPDATE", region); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_plans SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_routes2 SET n = n + 1 WHERE id = 1") // want `lock-order inversion: rows of gf_plans and rows of gf_routes2 are locked in opposite orders`
	return err
}

func Replan(ctx context.Context, tx pgx.Tx, region int64) error { // want Replan:`^locks\(table:gf_zones ROW SHARE@p1, `
	if _, err := tx.Exec(ctx, "SELECT id FROM gf_zones WHERE region = $1 ORDER BY id FOR UPDATE", region); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_routes2 SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_plans SET n = n + 1 WHERE id = 1")
	return err
}
