package tableparam // want package:"sql=true edges=[0-9]+"

// A squirrel helper whose table and column are its parameters: every
// caller passes constants, so each call site locks its own table, as the
// same helper written in raw SQL ("UPDATE " + table + ...) would. Reserve
// takes flights then hotels, Release hotels then flights: an inversion
// seen only once the helper's statement is bound at its callers.

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

// psql renders $n placeholders.
var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// adjust moves a counter of one row of table; it runs the statement.
func adjust(ctx context.Context, tx *sql.Tx, table, column string, id int64, delta int) error {
	_, err := psql.Update(table).
		Set(column, sq.Expr(column+" + ?", delta)).
		Where(sq.Eq{"id": id}).
		RunWith(tx).ExecContext(ctx)
	return err
}

// lockQuery renders the statement that locks one row of table, for a
// database/sql call: ToSql's text is the same template.
func lockQuery(table string, id int64) (string, []any, error) {
	return psql.Select("id").From(table).Where(sq.Eq{"id": id}).Suffix("FOR UPDATE").ToSql()
}

// Reserve takes a seat, then a room.
func Reserve(ctx context.Context, db *sql.DB, flight, hotel int64) error { // want Reserve:`locks\(.*row:flights FOR NO KEY UPDATE@L0.*row:hotels FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := adjust(ctx, tx, "flights", "seats_left", flight, -1); err != nil {
		return err
	}
	if err := adjust(ctx, tx, "hotels", "rooms_left", hotel, -1); err != nil {
		return err
	}
	return tx.Commit()
}

// Release gives the room back, then the seat: the opposite order.
func Release(ctx context.Context, db *sql.DB, flight, hotel int64) error { // want Release:`locks\(.*row:hotels FOR NO KEY UPDATE@L0.*row:flights FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := adjust(ctx, tx, "hotels", "rooms_left", hotel, 1); err != nil {
		return err
	}
	if err := adjust(ctx, tx, "flights", "seats_left", flight, 1); err != nil { // want `lock-order inversion: rows of flights and rows of hotels are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Rebook locks the flight through the ToSql helper, then the hotel: the
// same order as Reserve, no second report.
func Rebook(ctx context.Context, db *sql.DB, flight, hotel int64) error { // want Rebook:`locks\(.*row:flights FOR UPDATE@L0.*row:hotels FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args, err := lockQuery("flights", flight)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	if err := adjust(ctx, tx, "hotels", "rooms_left", hotel, 0); err != nil {
		return err
	}
	return tx.Commit()
}

// Ledger names its table at run time: its statement is built at run time
// (a skip, with the reason), and locks nothing the analysis can name.
type Ledger struct {
	table string
}

// Touch adjusts a row of the ledger's table, then a room.
func (l *Ledger) Touch(ctx context.Context, db *sql.DB, id, hotel int64) error { // want Touch:`locks\(.*row:hotels FOR NO KEY UPDATE@L0\)`
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := adjust(ctx, tx, l.table, "n", id, 1); err != nil {
		return err
	}
	if err := adjust(ctx, tx, "hotels", "rooms_left", hotel, 1); err != nil {
		return err
	}
	return tx.Commit()
}
