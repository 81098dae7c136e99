package forshare // want package:"sql=true edges=46"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Service reads and changes accounts.
type Service struct {
	pool *pgxpool.Pool
}

// ReportUsage reads the subscription and the usage records under FOR SHARE:
// shared row locks never conflict with each other, so the opposite order in
// AuditUsage is harmless.
func (s *Service) ReportUsage(ctx context.Context, accountID int64) (int64, error) { // want ReportUsage:`locks\(.*row:subscriptions FOR SHARE@L0.*row:usage_records FOR SHARE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	var plan string
	if err := tx.QueryRow(ctx, "SELECT plan FROM subscriptions WHERE account_id = $1 FOR SHARE", accountID).Scan(&plan); err != nil {
		return 0, err
	}
	var units int64
	if err := tx.QueryRow(ctx, "SELECT units FROM usage_records WHERE account_id = $1 FOR SHARE", accountID).Scan(&units); err != nil {
		return 0, err
	}
	return units, tx.Commit(ctx)
}

// AuditUsage takes the same shared locks in the opposite order.
func (s *Service) AuditUsage(ctx context.Context, accountID int64) error { // want AuditUsage:`locks\(.*row:usage_records FOR SHARE@L0.*row:subscriptions FOR SHARE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM usage_records WHERE account_id = $1 FOR SHARE", accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM subscriptions WHERE account_id = $1 FOR SHARE", accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// ClosePeriod shares the period row, then locks the invoice for update.
func (s *Service) ClosePeriod(ctx context.Context, accountID int64) error { // want ClosePeriod:`locks\(.*row:billing_periods FOR SHARE@L0.*row:invoices FOR UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM billing_periods WHERE account_id = $1 FOR SHARE", accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM invoices WHERE account_id = $1 FOR UPDATE", accountID); err != nil { // want `lock-order inversion: rows of billing_periods and rows of invoices are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// VoidInvoice shares the invoice, then locks the period for update: FOR
// UPDATE conflicts with FOR SHARE, so this deadlocks with ClosePeriod.
func (s *Service) VoidInvoice(ctx context.Context, accountID int64) error { // want VoidInvoice:`locks\(.*row:invoices FOR SHARE@L0.*row:billing_periods FOR UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM invoices WHERE account_id = $1 FOR SHARE", accountID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM billing_periods WHERE account_id = $1 FOR UPDATE", accountID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// AddLineItem holds the order with FOR KEY SHARE (as a foreign key check
// would) and then updates the customer's non-key columns.
func (s *Service) AddLineItem(ctx context.Context, orderID, customerID int64) error { // want AddLineItem:`locks\(.*row:orders FOR KEY SHARE@L0.*row:customers FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM orders WHERE id = $1 FOR KEY SHARE", orderID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM customers WHERE id = $1 FOR NO KEY UPDATE", customerID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// TouchCustomer takes the same kinds of lock the other way round: KEY SHARE
// and NO KEY UPDATE do not conflict, so there is no deadlock.
func (s *Service) TouchCustomer(ctx context.Context, orderID, customerID int64) error { // want TouchCustomer:`locks\(.*row:customers FOR KEY SHARE@L0.*row:orders FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM customers WHERE id = $1 FOR KEY SHARE", customerID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE orders SET note = 'touched' WHERE id = $1", orderID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Reserve reads the stock row under FOR SHARE and then locks it FOR
// UPDATE: two concurrent reservations both get the shared lock and then
// wait for each other to upgrade it.
func (s *Service) Reserve(ctx context.Context, itemID int64) error { // want Reserve:`locks\(.*row:stock FOR SHARE@L0.*row:stock FOR UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var qty int
	if err := tx.QueryRow(ctx, "SELECT qty FROM stock WHERE item_id = $1 FOR SHARE", itemID).Scan(&qty); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT qty FROM stock WHERE item_id = $1 FOR UPDATE", itemID); err != nil { // want `lock-upgrade deadlock: forshare\.Service\.Reserve holds rows of stock \(FOR SHARE\) and then requests rows of stock \(FOR UPDATE\) on the same object`
		return err
	}
	return tx.Commit(ctx)
}

// Restock holds the warehouse row with FOR KEY SHARE and then updates its
// non-key columns (FOR NO KEY UPDATE): that does not conflict with another
// run's KEY SHARE, so two runs do not deadlock.
func (s *Service) Restock(ctx context.Context, warehouseID int64) error { // want Restock:`locks\(.*row:warehouses FOR KEY SHARE@L0.*row:warehouses FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM warehouses WHERE id = $1 FOR KEY SHARE", warehouseID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE warehouses SET restocked_at = now() WHERE id = $1", warehouseID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Recount locks the row FOR UPDATE first and then updates it: the update
// needs nothing more.
func (s *Service) Recount(ctx context.Context, itemID int64) error { // want Recount:`locks\(.*row:stock_counts FOR UPDATE@L0.*row:stock_counts FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT qty FROM stock_counts WHERE item_id = $1 FOR UPDATE", itemID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE stock_counts SET qty = qty + 1 WHERE item_id = $1", itemID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
