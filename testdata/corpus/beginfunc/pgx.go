package beginfunc // want package:"sql=true edges=38"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Orders ships and cancels orders.
type Orders struct {
	pool *pgxpool.Pool
}

// Ship locks the order, then its shipment, in a BeginFunc transaction.
func (o *Orders) Ship(ctx context.Context, orderID int64) error { // want Ship:`locks\(.*row:orders FOR NO KEY UPDATE@L0.*row:shipments FOR NO KEY UPDATE@L0`
	return pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE orders SET state = 'shipped' WHERE id = $1", orderID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE shipments SET state = 'sent' WHERE order_id = $1", orderID) // want `lock-order inversion: rows of orders and rows of shipments are locked in opposite orders`
		return err
	})
}

// Cancel locks the shipment first, then the order.
func (o *Orders) Cancel(ctx context.Context, orderID int64) error { // want Cancel:`locks\(.*row:shipments FOR NO KEY UPDATE@L0.*row:orders FOR NO KEY UPDATE@L0`
	return pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE shipments SET state = 'cancelled' WHERE order_id = $1", orderID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE orders SET state = 'cancelled' WHERE id = $1", orderID)
		return err
	})
}

// Return locks the return, then the refund, through a named callback.
func (o *Orders) Return(ctx context.Context, returnID int64) error { // want Return:`locks\(.*row:returns FOR NO KEY UPDATE@L0.*row:refunds FOR NO KEY UPDATE@L0`
	return pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		return lockReturnThenRefund(ctx, tx, returnID)
	})
}

func lockReturnThenRefund(ctx context.Context, tx pgx.Tx, id int64) error {
	if _, err := tx.Exec(ctx, "UPDATE returns SET state = 'received' WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE refunds SET state = 'due' WHERE return_id = $1", id)
	return err
}

// Refund keeps the same order as Return: no deadlock.
func (o *Orders) Refund(ctx context.Context, returnID int64) error { // want Refund:`locks\(.*row:returns FOR UPDATE@L0.*row:refunds FOR NO KEY UPDATE@L0`
	return pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT id FROM returns WHERE id = $1 FOR UPDATE", returnID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE refunds SET state = 'paid' WHERE return_id = $1", returnID)
		return err
	})
}
