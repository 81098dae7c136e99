package rowcallers // want package:"sql=true edges=2"

// A helper that takes the caller's handle (sqlc's DBTX) and locks a set of
// rows in no order is one mistake, whichever transactions call it: one
// report, at its first caller, naming the others.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DBTX is what sqlc's queries run on: a pool or a transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// deleteItems removes the caller's items, in no order.
func deleteItems(ctx context.Context, db DBTX, ids []int64) error {
	_, err := db.Exec(ctx, "DELETE FROM rc_items WHERE id = ANY($1)", ids)
	return err
}

// Queue runs its work in transactions.
type Queue struct {
	pool *pgxpool.Pool
}

// Pause removes items in a transaction.
func (q *Queue) Pause(ctx context.Context, ids []int64) error { // want Pause:`^locks\(table:rc_items ROW EXCLUSIVE@L0, row:rc_items FOR UPDATE@L0\)$`
	tx, err := q.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := deleteItems(ctx, tx, ids); err != nil { // want `unordered multi-row lock: DELETE takes rows of rc_items \(FOR UPDATE\), several of them \(= ANY\(\.\.\.\)\)(.|\n)*also: the same statement in the transactions of rowcallers\.Queue\.Cancel`
		return err
	}
	return tx.Commit(ctx)
}

// Cancel removes items in another transaction: the same statement.
func (q *Queue) Cancel(ctx context.Context, ids []int64) error { // want Cancel:`^locks\(table:rc_items ROW EXCLUSIVE@L0, row:rc_items FOR UPDATE@L0\)$`
	tx, err := q.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := deleteItems(ctx, tx, ids); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
