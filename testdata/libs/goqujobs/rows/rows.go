package rows // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"database/sql"

	"github.com/doug-martin/goqu/v9"
	"github.com/doug-martin/goqu/v9/exp"
)

var pg = goqu.Dialect("postgres")

// run renders a dataset and runs it in the transaction.
func lockRows(ctx context.Context, tx *sql.Tx, q string, args []any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	return rows.Close()
}

// HoldMany locks the caller's cars in the order the plan returns them: a
// slice in goqu.Ex is an IN list.
func HoldMany(ctx context.Context, tx *sql.Tx, ids []int64) error { // want HoldMany:`locks\(.*row:cars FOR UPDATE`
	q, args, err := pg.From("cars").Where(goqu.Ex{"id": ids, "status": "available"}).ForUpdate(exp.Wait).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, q, args...) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of cars`
	if err != nil {
		return err
	}
	return rows.Close()
}

// HoldIn locks the caller's cars with In: unordered too.
func HoldIn(ctx context.Context, tx *sql.Tx, ids []int64) error { // want HoldIn:`locks\(.*row:vans FOR NO KEY UPDATE`
	q, args, err := pg.From("vans").Where(goqu.C("id").In(ids)).ForNoKeyUpdate(exp.Wait).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, q, args...) // want `unordered multi-row lock: SELECT ... FOR NO KEY UPDATE takes rows of vans`
	if err != nil {
		return err
	}
	return rows.Close()
}

// HoldOrdered locks the same set in key order: silent.
func HoldOrdered(ctx context.Context, tx *sql.Tx, ids []int64) error { // want HoldOrdered:`locks\(.*row:cars FOR UPDATE`
	q, args, err := pg.From("cars").Where(goqu.Ex{"id": ids}).Order(goqu.C("id").Asc()).ForUpdate(exp.Wait).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	return lockRows(ctx, tx, q, args)
}

// ClaimNext skips locked rows: it never waits, silent.
func ClaimNext(ctx context.Context, tx *sql.Tx) error { // want ClaimNext:`locks\(.*row:cars FOR UPDATE`
	q, args, err := pg.From("cars").Where(goqu.Ex{"status": "dirty"}, goqu.C("wash_id").IsNull()).
		Limit(10).ForUpdate(exp.SkipLocked).Prepared(true).ToSQL()
	if err != nil {
		return err
	}
	return lockRows(ctx, tx, q, args)
}
