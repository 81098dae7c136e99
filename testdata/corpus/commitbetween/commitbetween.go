package commitbetween // want package:"sql=true edges=41"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Billing closes invoices.
type Billing struct {
	pool *pgxpool.Pool
}

// CloseInvoice locks the invoice in one transaction and commits before it
// touches the customer in a second one: it never holds both.
func (b *Billing) CloseInvoice(ctx context.Context, invoiceID, customerID int64) error { // want CloseInvoice:`locks\(.*row:invoices FOR NO KEY UPDATE@L1.*row:customers FOR NO KEY UPDATE@L0`
	tx1, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx1.Rollback(ctx)
	if _, err := tx1.Exec(ctx, "UPDATE invoices SET closed = true WHERE id = $1", invoiceID); err != nil {
		return err
	}
	if err := tx1.Commit(ctx); err != nil {
		return err
	}

	tx2, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx2.Rollback(ctx)
	if _, err := tx2.Exec(ctx, "UPDATE customers SET open_invoices = open_invoices - 1 WHERE id = $1", customerID); err != nil {
		return err
	}
	return tx2.Commit(ctx)
}

// MergeCustomer locks the customer and then its invoices in one transaction.
func (b *Billing) MergeCustomer(ctx context.Context, customerID int64) error { // want MergeCustomer:`locks\(.*row:customers FOR UPDATE@L0.*row:invoices FOR NO KEY UPDATE@L0`
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM customers WHERE id = $1 FOR UPDATE", customerID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE invoices SET customer_id = NULL WHERE customer_id = $1", customerID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// RefundPayment locks the payment and then the refund in one transaction.
func (b *Billing) RefundPayment(ctx context.Context, paymentID int64) error { // want RefundPayment:`locks\(.*row:payments FOR NO KEY UPDATE@L0.*row:refunds FOR NO KEY UPDATE@L0`
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE payments SET refunded = true WHERE id = $1", paymentID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE refunds SET requested = true WHERE payment_id = $1", paymentID); err != nil { // want `lock-order inversion: rows of payments and rows of refunds are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// ReconcileRefund locks the refund and then the payment without a commit in
// between: the twin of CloseInvoice that does deadlock with RefundPayment.
func (b *Billing) ReconcileRefund(ctx context.Context, paymentID int64) error { // want ReconcileRefund:`locks\(.*row:refunds FOR NO KEY UPDATE@L0.*row:payments FOR NO KEY UPDATE@L0`
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE refunds SET reconciled = true WHERE payment_id = $1", paymentID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE payments SET reconciled = true WHERE id = $1", paymentID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
