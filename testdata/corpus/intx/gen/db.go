package gen // want package:"sql=true edges=0"

import (
	"context"
	"database/sql"
)

type DBTX interface {
	ExecContext(context.Context, string, ...interface{}) (sql.Result, error)
	QueryRowContext(context.Context, string, ...interface{}) *sql.Row
}

func New(db DBTX) *Queries { return &Queries{db: db} } // want New:`^returns\(0.db=p0\(handle\)\)$`

type Queries struct{ db DBTX }

func (q *Queries) WithTx(tx *sql.Tx) *Queries { return &Queries{db: tx} } // want WithTx:`^returns\(0.db=p1\(transaction\)\)$`

const lockShipment = `-- name: LockShipment :one
SELECT id FROM shipments WHERE order_id = $1 FOR UPDATE
`

func (q *Queries) LockShipment(ctx context.Context, orderID int64) (int64, error) { // want LockShipment:`row:shipments FOR UPDATE@p0.db\) holds\[0 1\]`
	row := q.db.QueryRowContext(ctx, lockShipment, orderID)
	var id int64
	err := row.Scan(&id)
	return id, err
}

const markPaid = `-- name: MarkPaid :exec
UPDATE payments SET paid = true WHERE order_id = $1
`

func (q *Queries) MarkPaid(ctx context.Context, orderID int64) error { // want MarkPaid:`row:payments FOR NO KEY UPDATE@p0.db\) holds\[0 1\]`
	_, err := q.db.ExecContext(ctx, markPaid, orderID)
	return err
}
