package gates

import (
	"context"

	"github.com/jackc/pgx/v5"
)

const catalogLock = 900

// Publish and Reprice both take the catalog lock first: whichever gets it
// first runs to its commit before the other takes anything, so the opposite
// orders of products and prices cannot deadlock.
func Publish(ctx context.Context, tx pgx.Tx) error { // want Publish:`^locks\(advisory:\(900\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", catalogLock); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE products SET published = true WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE prices SET active = true WHERE product_id = 1")
	return err
}

// Reprice is Publish's opposite order, behind the same gate.
func Reprice(ctx context.Context, tx pgx.Tx) error { // want Reprice:`^locks\(advisory:\(900\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", catalogLock); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE prices SET amount = amount * 2 WHERE product_id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE products SET repriced = true WHERE id = 1")
	return err
}

// Discount takes the gate only when asked to: on the other path it inverts
// products and prices against Publish with nothing in front.
func Discount(ctx context.Context, tx pgx.Tx, careful bool) error { // want Discount:`^locks\(advisory:\(900\) exclusive@p1, `
	if careful {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", catalogLock); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, "UPDATE prices SET discount = 1 WHERE product_id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE products SET discounted = true WHERE id = 1") // want `(?s)lock-order inversion: rows of prices and rows of products.*without first taking advisory lock \(900\), which the other path takes.*fix: in gates\.Discount, take advisory lock \(900\) first, as the other path does`
	return err
}

// Ship and Unship lock the order row first (the aggregate root), then its
// lines and its payment in either order.
func Ship(ctx context.Context, tx pgx.Tx, id int64) error { // want Ship:`^locks\(table:gate_orders ROW SHARE@p1, row:gate_orders FOR UPDATE@p1, `
	if _, err := tx.Exec(ctx, "SELECT id FROM gate_orders WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gate_lines SET shipped = true WHERE order_id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gate_payments SET captured = true WHERE order_id = $1", id)
	return err
}

// Unship is Ship's opposite order, behind the same root.
func Unship(ctx context.Context, tx pgx.Tx, id int64) error { // want Unship:`^locks\(table:gate_orders ROW SHARE@p1, row:gate_orders FOR UPDATE@p1, `
	if _, err := tx.Exec(ctx, "SELECT id FROM gate_orders WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gate_payments SET captured = false WHERE order_id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gate_lines SET shipped = false WHERE order_id = $1", id)
	return err
}

// Audit and Reconcile share the report lock in shared mode: shared locks do
// not exclude each other, so they are no gate.
func Audit(ctx context.Context, tx pgx.Tx) error { // want Audit:`^locks\(advisory:\(77\) shared@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared(77)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE ledger SET audited = true WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE journal SET audited = true WHERE id = 1")
	return err
}

// Reconcile is Audit's opposite order.
func Reconcile(ctx context.Context, tx pgx.Tx) error { // want Reconcile:`^locks\(advisory:\(77\) shared@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared(77)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE journal SET reconciled = true WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE ledger SET reconciled = true WHERE id = 1") // want `lock-order inversion: rows of journal and rows of ledger are locked in opposite orders`
	return err
}

// tenantGate takes the tenant's lock; the key is known only at run time.
func tenantGate(ctx context.Context, tx pgx.Tx, tenant string) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", tenant)
	return err
}

// AddSeat and RemoveMember take the tenant gate first, through the same
// helper: the usual per-tenant guard.
func AddSeat(ctx context.Context, tx pgx.Tx, tenant string) error { // want AddSeat:`^locks\(advisory:\(hashtext\(\?p2\)\)\|@.*gates.go:[0-9]+:19 exclusive@p1, `
	if err := tenantGate(ctx, tx, tenant); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE seats SET used = used + 1 WHERE tenant = $1", tenant); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE members SET seated = true WHERE tenant = $1", tenant)
	return err
}

// RemoveMember is AddSeat's opposite order, behind the same gate.
func RemoveMember(ctx context.Context, tx pgx.Tx, tenant string) error { // want RemoveMember:`^locks\(advisory:\(hashtext\(\?p2\)\)\|@.*gates.go:[0-9]+:19 exclusive@p1, `
	if err := tenantGate(ctx, tx, tenant); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE members SET seated = false WHERE tenant = $1", tenant); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE seats SET used = used - 1 WHERE tenant = $1", tenant)
	return err
}
