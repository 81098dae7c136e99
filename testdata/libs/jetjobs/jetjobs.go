package jetjobs // want package:"sql=true edges=[0-9]+"

// Code written with go-jet v2 over table code laid out the way jet's
// generator writes it (gen/table, written by hand for this test:
// invoice_headers is the table behind the Invoices variable, a name only
// its initialiser gives). Pay locks the invoice, then charges the customer;
// Refund credits the customer, then locks the invoice: an inversion.

import (
	"context"
	"database/sql"

	. "github.com/go-jet/jet/v2/postgres"

	. "libs/jetjobs/gen/table"
)

// Pay locks the invoice, then charges the customer.
func Pay(ctx context.Context, db *sql.DB, invoiceID, customerID int64) error { // want Pay:`locks\(.*row:invoice_headers FOR UPDATE@L0.*row:customers FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var inv struct{ ID int64 }
	if err := SELECT(Invoices.ID).FROM(Invoices).WHERE(Invoices.ID.EQ(Int(invoiceID))).FOR(UPDATE()).QueryContext(ctx, tx, &inv); err != nil {
		return err
	}
	if _, err := Customers.UPDATE(Customers.Balance).SET(Int(0)).WHERE(Customers.ID.EQ(Int(customerID))).ExecContext(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund credits the customer, then locks the invoice: the opposite order.
func Refund(ctx context.Context, db *sql.DB, invoiceID, customerID int64) error { // want Refund:`locks\(.*row:customers FOR NO KEY UPDATE@L0.*row:invoice_headers FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := Customers.UPDATE().
		SET(Customers.Balance.SET(Customers.Balance.ADD(Int(10)))).
		WHERE(Customers.ID.EQ(Int(customerID))).
		Exec(tx); err != nil {
		return err
	}
	var inv struct{ ID int64 }
	err = Invoices.SELECT(Invoices.ID).WHERE(Invoices.ID.EQ(Int(invoiceID)).AND(Invoices.Status.EQ(String("paid")))).FOR(NO_KEY_UPDATE()).Query(tx, &inv) // want `lock-order inversion: rows of customers and rows of invoice_headers are locked in opposite orders`
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Audit reads the invoice without a lock, then charges the customer: a
// near miss of Refund's order, with no row lock on the invoice.
func Audit(ctx context.Context, db *sql.DB, invoiceID, customerID int64) error { // want Audit:`locks\(table:customers ROW EXCLUSIVE@L0, row:customers FOR NO KEY UPDATE@L0, table:invoice_headers ACCESS SHARE@L0\)`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := Customers.UPDATE(Customers.Balance).SET(Int(1)).WHERE(Customers.ID.EQ(Int(customerID))).ExecContext(ctx, tx); err != nil {
		return err
	}
	var inv struct{ ID int64 }
	if err := SELECT(Invoices.AllColumns).FROM(Invoices).WHERE(Invoices.ID.EQ(Int(invoiceID))).QueryContext(ctx, tx, &inv); err != nil {
		return err
	}
	return tx.Commit()
}

// Skim takes invoices it can lock at once and skips the others, after the
// customer: SKIP LOCKED never waits, so it closes no cycle.
func Skim(ctx context.Context, db *sql.DB, customerID int64) error { // want Skim:`locks\(.*row:customers FOR NO KEY UPDATE@L0.*row:invoice_headers FOR UPDATE@L0\)`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := Customers.UPDATE(Customers.Balance).SET(Int(2)).WHERE(Customers.ID.EQ(Int(customerID))).ExecContext(ctx, tx); err != nil {
		return err
	}
	var invs []struct{ ID int64 }
	if err := SELECT(Invoices.ID).FROM(Invoices).WHERE(Invoices.CustomerID.EQ(Int(customerID))).ORDER_BY(Invoices.ID.ASC()).FOR(UPDATE().SKIP_LOCKED()).QueryContext(ctx, tx, &invs); err != nil {
		return err
	}
	return tx.Commit()
}

// Void deletes void invoices on the pool: one statement in autocommit,
// which holds nothing while it waits.
func Void(ctx context.Context, db *sql.DB) error { // want Void:`locks\(table:invoice_headers ROW EXCLUSIVE@p1, row:invoice_headers FOR UPDATE@p1\)`
	_, err := Invoices.DELETE().WHERE(Invoices.Status.EQ(String("void"))).ExecContext(ctx, db)
	return err
}

// Settle locks the invoice through the text Sql() renders, run by
// database/sql, then the customer: Pay's order.
func Settle(ctx context.Context, db *sql.DB, invoiceID, customerID int64) error { // want Settle:`locks\(.*row:invoice_headers FOR UPDATE@L0.*row:customers FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args := SELECT(Invoices.ID).FROM(Invoices).WHERE(Invoices.ID.EQ(Int(invoiceID))).FOR(UPDATE()).Sql()
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	if _, err := Customers.UPDATE(Customers.Balance).SET(Int(3)).WHERE(Customers.ID.EQ(Int(customerID))).ExecContext(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Freeze takes a table lock on customers first, then an invoice: ACCESS
// SHARE conflicts only with ACCESS EXCLUSIVE, not with the ROW EXCLUSIVE of
// Pay's UPDATE, so it closes no cycle (IN(LOCK_SHARE) would).
func Freeze(ctx context.Context, db *sql.DB, invoiceID int64) error { // want Freeze:`locks\(table:customers ACCESS SHARE@L0.*row:invoice_headers FOR UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := Customers.LOCK().IN(LOCK_ACCESS_SHARE).ExecContext(ctx, tx); err != nil {
		return err
	}
	var inv struct{ ID int64 }
	if err := SELECT(Invoices.ID).FROM(Invoices).WHERE(Invoices.ID.EQ(Int(invoiceID))).FOR(UPDATE()).QueryContext(ctx, tx, &inv); err != nil {
		return err
	}
	return tx.Commit()
}

// run executes a statement it is given: the model cannot tell which, so
// the call counts as text built at run time, not as no SQL at all.
func run(ctx context.Context, tx *sql.Tx, stmt Statement) error {
	_, err := stmt.ExecContext(ctx, tx)
	return err
}

// Close runs a statement through run.
func Close(ctx context.Context, db *sql.DB, invoiceID int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := run(ctx, tx, Invoices.UPDATE(Invoices.Status).SET(String("closed")).WHERE(Invoices.ID.EQ(Int(invoiceID)))); err != nil {
		return err
	}
	return tx.Commit()
}

// Lookup reads an invoice joined with its customer, FOR SHARE, on the pool:
// the model locks the first table of the join, in autocommit.
func Lookup(ctx context.Context, db *sql.DB, invoiceID int64) error { // want Lookup:`locks\(table:invoice_headers ROW SHARE@p1, row:invoice_headers FOR SHARE@p1\)`
	var out struct{ ID int64 }
	return SELECT(Invoices.ID, Customers.Balance).
		FROM(Invoices.INNER_JOIN(Customers, Customers.ID.EQ(Invoices.CustomerID))).
		WHERE(Invoices.ID.EQ(Int(invoiceID))).
		FOR(SHARE()).
		QueryContext(ctx, db, &out)
}

// Rename updates an invoice through its mutable columns, the generator's
// column list: the row lock of any UPDATE, on the invoice alone.
func Rename(ctx context.Context, db *sql.DB, invoiceID int64, status string) error { // want Rename:`locks\(table:invoice_headers ROW EXCLUSIVE@p1, row:invoice_headers FOR NO KEY UPDATE@p1\)`
	_, err := Invoices.UPDATE(Invoices.MutableColumns).
		SET(Invoices.Status.SET(String(status))).
		WHERE(Invoices.ID.EQ(Int(invoiceID))).
		ExecContext(ctx, db)
	return err
}
