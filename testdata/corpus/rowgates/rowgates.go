package rowgates // want package:"sql=true edges=37"

// The row-order rules (unordered-row-lock, loop-lock-order,
// caller-row-order) stay silent when every execution takes a guard first:
// an exclusive advisory lock or LOCK TABLE in a self-excluding mode. Two
// executions then run one after the other, whatever order each locks its
// rows in. A set of constants is the statement's own: one plan, one order.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

const billingGate = 4242

// CloseInvoices locks a caller's set of invoices, under the billing gate.
func CloseInvoices(ctx context.Context, tx pgx.Tx, ids []int64) error { // want CloseInvoices:`^locks\(advisory:\(4242\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", billingGate); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM rg_invoices WHERE id = ANY($1) FOR UPDATE", ids)
	return err
}

// CloseInvoicesUnguarded is the same without the gate: reported.
func CloseInvoicesUnguarded(ctx context.Context, tx pgx.Tx, ids []int64) error { // want CloseInvoicesUnguarded:`^locks\(table:rg_invoices ROW SHARE@p1, `
	_, err := tx.Exec(ctx, "SELECT id FROM rg_invoices WHERE id = ANY($1) FOR UPDATE", ids) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of rg_invoices`
	return err
}

// CloseInvoicesSharedGate takes the gate in shared mode: two executions
// both get it, so it guards nothing.
func CloseInvoicesSharedGate(ctx context.Context, tx pgx.Tx, ids []int64) error { // want CloseInvoicesSharedGate:`^locks\(advisory:\(4242\) shared@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared($1)", billingGate); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM rg_invoices WHERE id = ANY($1) FOR UPDATE", ids) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of rg_invoices`
	return err
}

// CloseInvoicesLateGate takes the gate after the rows: too late.
func CloseInvoicesLateGate(ctx context.Context, tx pgx.Tx, ids []int64) error { // want CloseInvoicesLateGate:`^locks\(table:rg_invoices ROW SHARE@p1, `
	if _, err := tx.Exec(ctx, "SELECT id FROM rg_invoices WHERE id = ANY($1) FOR UPDATE", ids); err != nil { // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of rg_invoices`
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", billingGate) // want `lock-order inversion: advisory lock \(4242\) and rows of rg_invoices`
	return err
}

// OpenDrafts locks one account's invoices in two constant states: one
// plan, one order for every execution.
func OpenDrafts(ctx context.Context, tx pgx.Tx, account int64) error { // want OpenDrafts:`^locks\(table:rg_invoices ROW SHARE@p1, `
	_, err := tx.Exec(ctx, "SELECT id FROM rg_invoices WHERE account_id = $1 AND status IN ('draft', 'open') FOR UPDATE", account)
	return err
}

// OpenStates locks the invoices in states the caller chooses: unordered.
func OpenStates(ctx context.Context, tx pgx.Tx, account int64, states []string) error { // want OpenStates:`^locks\(table:rg_invoices ROW SHARE@p1, `
	_, err := tx.Exec(ctx, "SELECT id FROM rg_invoices WHERE account_id = $1 AND status = ANY($2) FOR UPDATE", account, states) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of rg_invoices`
	return err
}

// Settle updates balances in map order, under an exclusive table lock.
func Settle(ctx context.Context, tx pgx.Tx, deltas map[int64]int64) error { // want Settle:`^locks\(table:rg_balances SHARE ROW EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "LOCK TABLE rg_balances IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return err
	}
	for id, d := range deltas {
		if _, err := tx.Exec(ctx, "UPDATE rg_accounts SET balance = balance + $2 WHERE id = $1", id, d); err != nil {
			return err
		}
	}
	return nil
}

// SettleUnguarded does it without the table lock: reported.
func SettleUnguarded(ctx context.Context, tx pgx.Tx, deltas map[int64]int64) error { // want SettleUnguarded:`^locks\(table:rg_accounts ROW EXCLUSIVE@p1, `
	for id, d := range deltas {
		if _, err := tx.Exec(ctx, "UPDATE rg_accounts SET balance = balance + $2 WHERE id = $1", id, d); err != nil { // want `lock order set by a loop: rows of rg_accounts`
			return err
		}
	}
	return nil
}

// Transfer locks two accounts in the caller's order, behind a per-tenant
// advisory lock every transfer of the tenant takes first.
func Transfer(ctx context.Context, tx pgx.Tx, tenant, from, to int64) error { // want Transfer:`^locks\(advisory:\(1, \?p2\)\|@.* exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1, $1::int)", tenant); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE rg_accounts SET balance = balance - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE rg_accounts SET balance = balance + 1 WHERE id = $1", to)
	return err
}

// TransferUnguarded is Transfer without the tenant lock: reported.
func TransferUnguarded(ctx context.Context, tx pgx.Tx, from, to int64) error { // want TransferUnguarded:`^locks\(table:rg_accounts ROW EXCLUSIVE@p1, `
	if _, err := tx.Exec(ctx, "UPDATE rg_accounts SET balance = balance - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE rg_accounts SET balance = balance + 1 WHERE id = $1", to) // want `row order chosen by the caller: rowgates.TransferUnguarded locks two rows of rg_accounts`
	return err
}
