package crossconn // want package:"sql=true edges=34"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Accounts moves money.
type Accounts struct {
	pool *pgxpool.Pool
}

// Withdraw locks the account in a transaction and then, by mistake, writes
// the same account through the pool: the second connection waits for the
// first, which waits for the application.
func (a *Accounts) Withdraw(ctx context.Context, accountID int64, amount int) error { // want Withdraw:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:accounts FOR NO KEY UPDATE@p0\.pool`
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $2 WHERE id = $1", accountID, amount); err != nil {
		return err
	}
	if _, err := a.pool.Exec(ctx, "UPDATE accounts SET last_activity = now() WHERE id = $1", accountID); err != nil { // want `application self-deadlock: crossconn\.Accounts\.Withdraw holds rows of accounts \(FOR NO KEY UPDATE\) and then waits for rows of accounts \(FOR NO KEY UPDATE\) on another connection`
		return err
	}
	return tx.Commit(ctx)
}

// Deposit does the same write on the transaction itself: silent.
func (a *Accounts) Deposit(ctx context.Context, accountID int64, amount int) error { // want Deposit:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $2 WHERE id = $1", accountID, amount); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET last_activity = now() WHERE id = $1", accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Archive holds the order in one transaction while a second transaction
// waits for the invoice: the wait passes through the application.
func (a *Accounts) Archive(ctx context.Context, orderID int64) error { // want Archive:`locks\(.*row:orders FOR UPDATE@L1.*row:invoices FOR NO KEY UPDATE@L0`
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM orders WHERE id = $1 FOR UPDATE", orderID); err != nil {
		return err
	}
	audit, err := a.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer audit.Rollback(ctx)
	if _, err := audit.Exec(ctx, "UPDATE invoices SET archived = true WHERE order_id = $1", orderID); err != nil {
		return err
	}
	if err := audit.Commit(ctx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Invoice locks the invoice, then the order, in one transaction: with
// Archive it forms a cycle PostgreSQL cannot see.
func (a *Accounts) Invoice(ctx context.Context, orderID int64) error { // want Invoice:`locks\(.*row:invoices FOR NO KEY UPDATE@L0.*row:orders FOR NO KEY UPDATE@L0`
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE invoices SET issued = true WHERE order_id = $1", orderID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE orders SET invoiced = true WHERE id = $1", orderID); err != nil { // want `(?s)application deadlock: rows of invoices and rows of orders are locked in opposite orders.*Archive holds rows of orders \(FOR UPDATE\) while waiting for rows of invoices \(FOR NO KEY UPDATE\) on another connection`
		return err
	}
	return tx.Commit(ctx)
}

// Notify commits the order before it writes the notification on the pool:
// silent.
func (a *Accounts) Notify(ctx context.Context, orderID int64) error { // want Notify:`locks\(.*row:orders FOR NO KEY UPDATE@L0.*row:orders FOR NO KEY UPDATE@p0\.pool`
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE orders SET notified = true WHERE id = $1", orderID); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	_, err = a.pool.Exec(ctx, "UPDATE orders SET notified_at = now() WHERE id = $1", orderID)
	return err
}
