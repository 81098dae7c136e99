package fixed // want package:"sql=true edges=[0-9]+"

// The twin of jetjobs with Refund fixed: it locks the invoice before it
// credits the customer, the order Pay keeps, so no cycle closes.

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

// Refund locks the invoice, then credits the customer: Pay's order.
func Refund(ctx context.Context, db *sql.DB, invoiceID, customerID int64) error { // want Refund:`locks\(.*row:invoice_headers FOR NO KEY UPDATE@L0.*row:customers FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var inv struct{ ID int64 }
	err = Invoices.SELECT(Invoices.ID).WHERE(Invoices.ID.EQ(Int(invoiceID)).AND(Invoices.Status.EQ(String("paid")))).FOR(NO_KEY_UPDATE()).Query(tx, &inv)
	if err != nil {
		return err
	}
	if _, err := Customers.UPDATE().
		SET(Customers.Balance.SET(Customers.Balance.ADD(Int(10)))).
		WHERE(Customers.ID.EQ(Int(customerID))).
		Exec(tx); err != nil {
		return err
	}
	return tx.Commit()
}
