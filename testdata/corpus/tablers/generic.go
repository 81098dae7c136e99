package tablers // want package:"sql=true edges=26"

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Invoice and Payment name their tables; lockRow reaches them through its
// type parameter, which only an instance of it resolves.
type Invoice struct{ ID int64 }

// TableName names the table of invoices.
func (Invoice) TableName() string { return "invoices" } // want TableName:`table\("invoices"\)`

// Payment is a payment.
type Payment struct{ ID int64 }

// TableName names the table of payments.
func (Payment) TableName() string { return "payments" } // want TableName:`table\("payments"\)`

func lockRow[M Tabler](ctx context.Context, tx pgx.Tx, id int64) error {
	var m M
	_, err := tx.Exec(ctx, "SELECT id FROM "+m.TableName()+" WHERE id = $1 FOR UPDATE", id)
	return err
}

// inTx is a generic transaction runner.
func inTx[T any](ctx context.Context, db *pgx.Conn, fn func(pgx.Tx) (T, error)) (T, error) {
	var zero T
	tx, err := db.Begin(ctx)
	if err != nil {
		return zero, err
	}
	defer tx.Rollback(ctx)
	v, err := fn(tx)
	if err != nil {
		return zero, err
	}
	return v, tx.Commit(ctx)
}

// settle and refund lock an invoice and a payment in opposite orders.
func settle(ctx context.Context, db *pgx.Conn, invoice, payment int64) (int64, error) {
	return inTx(ctx, db, func(tx pgx.Tx) (int64, error) {
		if err := lockRow[Invoice](ctx, tx, invoice); err != nil {
			return 0, err
		}
		return payment, lockRow[Payment](ctx, tx, payment)
	})
}

func refund(ctx context.Context, db *pgx.Conn, invoice, payment int64) (bool, error) {
	return inTx(ctx, db, func(tx pgx.Tx) (bool, error) {
		if err := lockRow[Payment](ctx, tx, payment); err != nil {
			return false, err
		}
		return true, lockRow[Invoice](ctx, tx, invoice) // want `lock-order inversion: rows of invoices and rows of payments are locked in opposite orders(.|\n)*tablers.lockRow\[tablers.Invoice\]`
	})
}

// settleSorted keeps the order of settle.
func settleSorted(ctx context.Context, db *pgx.Conn, invoice, payment int64) (bool, error) {
	return inTx(ctx, db, func(tx pgx.Tx) (bool, error) {
		if err := lockRow[Invoice](ctx, tx, invoice); err != nil {
			return false, err
		}
		return true, lockRow[Payment](ctx, tx, payment)
	})
}
