package gateflow // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"database/sql"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Orders begins its write transactions in helpers that take the write gate
// before they return the transaction.
type Orders struct {
	pool *pgxpool.Pool
	db   *sql.DB
}

const ordersGate = 920

// beginWrite begins a transaction behind the gate; on error it logs and
// returns no transaction, which its callers cannot use.
func (o *Orders) beginWrite(ctx context.Context) pgx.Tx { // want beginWrite:`^locks\(advisory:\(920\) exclusive@L0\) holds\[0\] returns`
	tx, err := o.pool.Begin(ctx)
	if err != nil {
		log.Print(err)
		return nil
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", ordersGate); err != nil {
		_ = tx.Rollback(ctx)
		log.Print(err)
		return nil
	}
	return tx
}

// Pick and Pack invert gf_items and gf_boxes behind the gate beginWrite
// takes: serialised, silent.
func (o *Orders) Pick(ctx context.Context) error { // want Pick:`^locks\(advisory:\(920\) exclusive@C0/L0, `
	tx := o.beginWrite(ctx)
	if tx == nil {
		return nil
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE gf_items SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_boxes SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (o *Orders) Pack(ctx context.Context) error { // want Pack:`^locks\(advisory:\(920\) exclusive@C0/L0, `
	tx := o.beginWrite(ctx)
	if tx == nil {
		return nil
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE gf_boxes SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_items SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// begin is the database/sql form: (*sql.Tx, error), the gate first.
func (o *Orders) begin(ctx context.Context) (*sql.Tx, error) { // want begin:`^locks\(advisory:\(921\) exclusive@L0\) holds\[0\] returns`
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(921)"); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// Bill and Refund invert gf_bills and gf_refunds behind begin's gate.
func (o *Orders) Bill(ctx context.Context) error { // want Bill:`^locks\(advisory:\(921\) exclusive@C0/L0, `
	tx, err := o.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE gf_bills SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE gf_refunds SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit()
}

func (o *Orders) Refund(ctx context.Context) error { // want Refund:`^locks\(advisory:\(921\) exclusive@C0/L0, `
	tx, err := o.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE gf_refunds SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE gf_bills SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit()
}

// inTx is a database/sql runner that takes the gate before the callback.
func (o *Orders) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error { // want inTx:`^locks\(advisory:\(922\) exclusive@L0\) invokes\(p2\(0=L0\(transaction\)\) holding\[0\]\)$`
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(922)"); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Ship and Return invert gf_parcels and gf_labels inside inTx's gate.
func (o *Orders) Ship(ctx context.Context) error { // want Ship:`^locks\(advisory:\(922\) exclusive@C0/L0, `
	return o.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE gf_parcels SET n = n + 1 WHERE id = 1"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE gf_labels SET n = n + 1 WHERE id = 1")
		return err
	})
}

func (o *Orders) Return(ctx context.Context) error { // want Return:`^locks\(advisory:\(922\) exclusive@C0/L0, `
	return o.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE gf_labels SET n = n + 1 WHERE id = 1"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE gf_parcels SET n = n + 1 WHERE id = 1")
		return err
	})
}

// beginLoose goes on without the gate when taking it fails: the
// transaction it returns may lack it.
func (o *Orders) beginLoose(ctx context.Context) pgx.Tx { // want beginLoose:`^locks\(advisory:\(920\) exclusive@L0\) holds\[0\] returns`
	tx, err := o.pool.Begin(ctx)
	if err != nil {
		log.Print(err)
		return nil
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", ordersGate); err != nil {
		log.Print(err)
		return tx
	}
	return tx
}

// Crate and Uncrate invert gf_crates and gf_pallets on transactions that may
// lack the gate: reported.
func (o *Orders) Crate(ctx context.Context) error { // want Crate:`^locks\(advisory:\(920\) exclusive@C0/L0, `
	tx := o.beginLoose(ctx)
	if tx == nil {
		return nil
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE gf_crates SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_pallets SET n = n + 1 WHERE id = 1"); err != nil { // want `(?s)lock-order inversion: rows of gf_crates and rows of gf_pallets.*gateflow.Orders.Crate.*without first taking advisory lock \(920\)`
		return err
	}
	return tx.Commit(ctx)
}

func (o *Orders) Uncrate(ctx context.Context) error { // want Uncrate:`^locks\(advisory:\(920\) exclusive@C0/L0, `
	tx := o.beginWrite(ctx)
	if tx == nil {
		return nil
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE gf_pallets SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_crates SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// writeTx is a write transaction the helper below hands out, behind the
// gate.
type writeTx struct{ tx pgx.Tx }

// beginScoped begins a transaction, takes the gate, and returns it wrapped.
func (o *Orders) beginScoped(ctx context.Context) (*writeTx, error) { // want beginScoped:`^locks\(advisory:\(923\) exclusive@L0\) holds\[0\] returns\(0\.tx=L0\(transaction\)\)$`
	tx, err := o.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(923)"); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return &writeTx{tx: tx}, nil
}

// Open and Shut invert gf_doors and gf_bolts on the wrapped transaction,
// behind the gate: silent.
func (o *Orders) Open(ctx context.Context) error { // want Open:`^locks\(advisory:\(923\) exclusive@C0/L0, `
	w, err := o.beginScoped(ctx)
	if err != nil {
		return err
	}
	defer w.tx.Rollback(ctx)
	if _, err := w.tx.Exec(ctx, "UPDATE gf_doors SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := w.tx.Exec(ctx, "UPDATE gf_bolts SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return w.tx.Commit(ctx)
}

func (o *Orders) Shut(ctx context.Context) error { // want Shut:`^locks\(advisory:\(923\) exclusive@C0/L0, `
	w, err := o.beginScoped(ctx)
	if err != nil {
		return err
	}
	defer w.tx.Rollback(ctx)
	if _, err := w.tx.Exec(ctx, "UPDATE gf_bolts SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	if _, err := w.tx.Exec(ctx, "UPDATE gf_doors SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	return w.tx.Commit(ctx)
}
