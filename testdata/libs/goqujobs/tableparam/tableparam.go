package tableparam // want package:"sql=true edges=[0-9]+"

// A goqu helper whose table is its parameter, rendered by ToSQL: each
// caller's constant names the table its call locks, as raw SQL text built
// from the parameter would. Open locks a batch then its lot; Close the lot
// then its batch: an inversion seen only once the helper is bound.

import (
	"context"
	"database/sql"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

var pg = goqu.Dialect("postgres")

// lock locks one row of table by id.
func lock(ctx context.Context, tx *sql.Tx, table string, id int64) error {
	q, args, err := pg.From(table).Select("id").Where(goqu.C("id").Eq(id)).ForUpdate(exp.Wait).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}

// Open locks the batch, then the lot.
func Open(ctx context.Context, db *sql.DB, batch, lot int64) error { // want Open:`locks\(.*row:batches FOR UPDATE@L0.*row:lots FOR UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lock(ctx, tx, "batches", batch); err != nil {
		return err
	}
	if err := lock(ctx, tx, "lots", lot); err != nil { // want `lock-order inversion: rows of batches and rows of lots are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Close locks the lot, then the batch: the opposite order.
func Close(ctx context.Context, db *sql.DB, batch, lot int64) error { // want Close:`locks\(.*row:lots FOR UPDATE@L0.*row:batches FOR UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lock(ctx, tx, "lots", lot); err != nil {
		return err
	}
	if err := lock(ctx, tx, "batches", batch); err != nil {
		return err
	}
	return tx.Commit()
}

// Peek locks only the lot: one lock, no order to break.
func Peek(ctx context.Context, db *sql.DB, lot int64) error { // want Peek:`locks\(table:lots ROW SHARE@L0, row:lots FOR UPDATE@L0\)`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lock(ctx, tx, "lots", lot); err != nil {
		return err
	}
	return tx.Commit()
}
