package db // want package:"sql=true edges=0"

// The other files of this package are laid out as sqlc v1.27.0 generates
// them for pgx/v5 (sql_package: "pgx/v5").

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type DBTX interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
	Query(context.Context, string, ...interface{}) (pgx.Rows, error)
	QueryRow(context.Context, string, ...interface{}) pgx.Row
}

func New(db DBTX) *Queries { // want New:`returns\(0\.db=p0\(handle\)\)`
	return &Queries{db: db}
}

type Queries struct {
	db DBTX
}

func (q *Queries) WithTx(tx pgx.Tx) *Queries { // want WithTx:`returns\(0\.db=p1\(transaction\)\)`
	return &Queries{
		db: tx,
	}
}
