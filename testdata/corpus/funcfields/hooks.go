package funcfields // want package:"sql=true edges=78"

import (
	"context"
	"database/sql"
)

// ledgerHooks are the hooks billing runs inside its transactions.
type ledgerHooks struct {
	audit func(ctx context.Context, tx *sql.Tx, ledger int64) error
}

// billing keeps its hooks in a struct field.
type billing struct {
	db    *sql.DB
	hooks ledgerHooks
}

func newBilling(db *sql.DB) *billing {
	b := &billing{db: db}
	b.hooks.audit = touchLedger
	return b
}

func touchLedger(ctx context.Context, tx *sql.Tx, ledger int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE ledgers SET balance = balance WHERE id = $1`, ledger)
	return err
}

// checkout pays the invoice, then runs the audit hook: invoices, then
// ledgers.
func (b *billing) checkout(ctx context.Context, invoice, ledger int64) error { // want checkout:`^locks\(table:invoices ROW EXCLUSIVE@L0, row:invoices FOR NO KEY UPDATE@L0, table:ledgers ROW EXCLUSIVE@L0, row:ledgers FOR NO KEY UPDATE@L0\)$`
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE invoices SET paid = true WHERE id = $1`, invoice); err != nil {
		return err
	}
	if err := b.hooks.audit(ctx, tx, ledger); err != nil { // want `(?s)lock-order inversion: rows of invoices and rows of ledgers are locked in opposite orders.*calls funcfields.touchLedger`
		return err
	}
	return tx.Commit()
}

// settle moves the ledger, then marks the invoice: ledgers, then invoices.
func (b *billing) settle(ctx context.Context, invoice, ledger int64) error { // want settle:`^locks\(table:ledgers ROW EXCLUSIVE@L0, row:ledgers FOR NO KEY UPDATE@L0, table:invoices ROW EXCLUSIVE@L0, row:invoices FOR NO KEY UPDATE@L0\)$`
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE ledgers SET balance = balance - 1 WHERE id = $1`, ledger); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE invoices SET paid = false WHERE id = $1`, invoice); err != nil {
		return err
	}
	return tx.Commit()
}

// refunder runs one handler of a map, chosen at run time: any of them may
// run, each a path of its own.
type refunder struct {
	db       *sql.DB
	handlers map[string]handler
}

// handler is a refund method.
type handler struct {
	refund func(ctx context.Context, tx *sql.Tx, payment, wallet int64) error
}

func newRefunder(db *sql.DB) *refunder {
	return &refunder{db: db, handlers: map[string]handler{
		"card":   {refund: refundCard},
		"wallet": newHandler(creditWallet),
	}}
}

// newHandler wraps a refund function: its calls name what the field holds.
func newHandler(fn func(ctx context.Context, tx *sql.Tx, payment, wallet int64) error) handler {
	return handler{refund: fn}
}

func refundCard(ctx context.Context, tx *sql.Tx, payment, _ int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE payments SET state = 'refunded' WHERE id = $1`, payment)
	return err
}

func creditWallet(ctx context.Context, tx *sql.Tx, _, wallet int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE wallets SET balance = balance + 1 WHERE id = $1`, wallet)
	return err
}

// refund locks the payment, then runs the method's handler: with the
// wallet handler, payments then wallets.
func (r *refunder) refund(ctx context.Context, method string, payment, wallet int64) error { // want refund:`^locks\(.*row:payments .*row:payments .*row:wallets `
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT id FROM payments WHERE id = $1 FOR UPDATE`, payment); err != nil {
		return err
	}
	if err := r.handlers[method].refund(ctx, tx, payment, wallet); err != nil { // want `(?s)lock-order inversion: rows of payments and rows of wallets are locked in opposite orders.*calls funcfields.creditWallet`
		return err
	}
	return tx.Commit()
}

// topUp locks the wallet, then the payment: wallets, then payments.
func (r *refunder) topUp(ctx context.Context, payment, wallet int64) error { // want topUp:`^locks\(table:wallets ROW EXCLUSIVE@L0, row:wallets FOR NO KEY UPDATE@L0, table:payments ROW EXCLUSIVE@L0, row:payments FOR NO KEY UPDATE@L0\)$`
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE wallets SET balance = balance - 1 WHERE id = $1`, wallet); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE payments SET state = 'paid' WHERE id = $1`, payment); err != nil {
		return err
	}
	return tx.Commit()
}

// Bill wires billing and refunds.
func Bill(ctx context.Context, db *sql.DB) error { // want Bill:`^locks\(.*row:invoices .*row:ledgers .*row:ledgers .*row:invoices .*row:payments .*row:payments .*row:wallets .*row:wallets .*row:payments `
	b, r := newBilling(db), newRefunder(db)
	if err := b.checkout(ctx, 1, 1); err != nil {
		return err
	}
	if err := b.settle(ctx, 1, 1); err != nil {
		return err
	}
	if err := r.refund(ctx, "wallet", 1, 1); err != nil {
		return err
	}
	return r.topUp(ctx, 1, 1)
}
