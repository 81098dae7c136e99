package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DBTX is what the queries run on: a transaction or the pool.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// lockRoutes and lockStops take the routes gate on their caller's handle,
// then invert gf_routes and gf_stops: whether they hold anything is for
// their callers to say, and the gate stands in front of the pair there too.
func lockRoutes(ctx context.Context, db DBTX) error {
	if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock(940)"); err != nil {
		return err
	}
	if _, err := db.Exec(ctx, "UPDATE gf_routes SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := db.Exec(ctx, "UPDATE gf_stops SET n = n + 1 WHERE id = 1")
	return err
}

func lockStops(ctx context.Context, db DBTX) error {
	if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock(940)"); err != nil {
		return err
	}
	if _, err := db.Exec(ctx, "UPDATE gf_stops SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := db.Exec(ctx, "UPDATE gf_routes SET n = n + 1 WHERE id = 1")
	return err
}

// Route and Stop run them in transactions.
func Route(ctx context.Context, tx pgx.Tx) error { // want Route:`^locks\(advisory:\(940\) exclusive@p1, `
	return lockRoutes(ctx, tx)
}

func Stop(ctx context.Context, tx pgx.Tx) error { // want Stop:`^locks\(advisory:\(940\) exclusive@p1, `
	return lockStops(ctx, tx)
}

// lockLegs inverts gf_legs and gf_hops on its caller's transaction; it is
// called only inside the gated runner's callback.
func lockLegs(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_legs SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_hops SET n = n + 1 WHERE id = 1")
	return err
}

// Leg runs lockLegs inside inGated's gate; Hop inverts the pair inside it.
func (s *Stock) Leg(ctx context.Context) error { // want Leg:`^locks\(advisory:\(930\) exclusive@C0/L0, `
	return s.inGated(ctx, func(tx pgx.Tx) error {
		return lockLegs(ctx, tx)
	})
}

func (s *Stock) Hop(ctx context.Context) error { // want Hop:`^locks\(advisory:\(930\) exclusive@C0/L0, `
	return s.inGated(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE gf_hops SET n = n + 1 WHERE id = 1"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE gf_legs SET n = n + 1 WHERE id = 1")
		return err
	})
}

// inGated runs fn in a transaction behind the stock gate.
func (s *Stock) inGated(ctx context.Context, fn func(tx pgx.Tx) error) error { // want inGated:`^locks\(advisory:\(930\) exclusive@L0\) invokes\(p2\(0=L0\(transaction\)\) holding\[0\]\)$`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockStock(ctx, tx); err != nil {
			return err
		}
		return fn(tx)
	})
}

// loadVans takes the gate on its caller's handle, unloadVans does not: the
// pair of the second stands in front of nothing.
func loadVans(ctx context.Context, db DBTX) error {
	if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock(940)"); err != nil {
		return err
	}
	if _, err := db.Exec(ctx, "UPDATE gf_vans SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := db.Exec(ctx, "UPDATE gf_docks SET n = n + 1 WHERE id = 1")
	return err
}

func unloadVans(ctx context.Context, db DBTX) error {
	if _, err := db.Exec(ctx, "UPDATE gf_docks SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := db.Exec(ctx, "UPDATE gf_vans SET n = n + 1 WHERE id = 1")
	return err
}

// Load and Unload run them in transactions.
func Load(ctx context.Context, tx pgx.Tx) error { // want Load:`^locks\(advisory:\(940\) exclusive@p1, `
	return loadVans(ctx, tx)
}

func Unload(ctx context.Context, tx pgx.Tx) error { // want Unload:`^locks\(table:gf_docks ROW EXCLUSIVE@p1, `
	return unloadVans(ctx, tx) // want `(?s)lock-order inversion: rows of gf_docks and rows of gf_vans.*gateflow.Unload.*without first taking advisory lock \(940\)`
}
