package sprintf // want package:"sql=true edges=46"

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	ordersTable   = "orders"
	paymentsTable = "payments"
)

// lockRowQuery builds a row-locking query for a table.
func lockRowQuery(table string) string {
	return fmt.Sprintf("SELECT id FROM %s WHERE id = $1 FOR UPDATE", table)
}

// Checkout locks the order, then the payment, with formatted queries.
func Checkout(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want Checkout:`locks\(.*row:orders FOR UPDATE@L0.*row:payments FOR NO KEY UPDATE@L0`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SELECT id FROM %s WHERE id = $1 FOR UPDATE", ordersTable), id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("UPDATE %s SET captured = true WHERE order_id = $1", paymentsTable), id); err != nil { // want `lock-order inversion: rows of orders and rows of payments are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Chargeback locks the payment, then the order.
func Chargeback(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want Chargeback:`locks\(.*row:payments FOR UPDATE@L0.*row:orders FOR NO KEY UPDATE@L0`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SELECT id FROM %s WHERE order_id = $1 FOR UPDATE", paymentsTable), id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("UPDATE %s SET disputed = true WHERE id = $1", ordersTable), id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Touch locks either a coupon or a gift card first, chosen at run time,
// then the cart: each alternative is a possible first lock.
func Touch(ctx context.Context, pool *pgxpool.Pool, id int64, gift bool) error { // want Touch:`locks\(.*row:carts FOR NO KEY UPDATE@L0.*row:coupons FOR UPDATE@L0.*row:gift_cards FOR UPDATE@L0`
	query := "SELECT id FROM coupons WHERE id = $1 FOR UPDATE"
	if gift {
		query = "SELECT id FROM gift_cards WHERE id = $1 FOR UPDATE"
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, query, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE carts SET touched = true WHERE id = $1", id)
		return err
	})
}

// ClearCart locks the cart, then the gift card: it deadlocks with Touch's
// gift-card alternative.
func ClearCart(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ClearCart:`locks\(.*row:carts FOR NO KEY UPDATE@L0.*row:gift_cards FOR NO KEY UPDATE@L0`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE carts SET items = 0 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gift_cards SET reserved = false WHERE cart_id = $1", id); err != nil { // want `lock-order inversion: rows of carts and rows of gift_cards are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// ReleaseHold locks a hold row of the table chosen by kind, with a
// formatted query, and then the wallet.
func ReleaseHold(ctx context.Context, pool *pgxpool.Pool, id int64, card bool) error { // want ReleaseHold:`locks\(.*row:bank_holds FOR UPDATE@L0.*row:card_holds FOR UPDATE@L0.*row:wallets FOR NO KEY UPDATE@L0`
	table := "bank_holds"
	if card {
		table = "card_holds"
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = $1", table), id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE wallets SET held = held - 1 WHERE id = $1", id); err != nil { // want `lock-order inversion: rows of card_holds and rows of wallets are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// PlaceHold locks the wallet, then a card hold: against ReleaseHold's card
// alternative.
func PlaceHold(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PlaceHold:`locks\(.*row:wallets FOR NO KEY UPDATE@L0.*row:card_holds FOR UPDATE@L0`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE wallets SET held = held + 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, lockRowQuery("card_holds"), id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
