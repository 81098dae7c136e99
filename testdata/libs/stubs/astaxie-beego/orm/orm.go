// Package orm is a stand-in for beego v1's orm (github.com/astaxie/beego/orm),
// written for pglockorder's tests: the Go module proxy does not serve it,
// and pglockorder models the library by its import path and the names and
// shapes of its methods. In v1 an Ormer begins, commits and rolls back a
// transaction in place.
package orm

import (
	"context"
	"database/sql"
)

// RawSeter runs a raw statement.
type RawSeter interface {
	Exec() (sql.Result, error)
	QueryRow(containers ...any) error
	QueryRows(containers ...any) (int64, error)
	SetArgs(args ...any) RawSeter
}

// Ormer runs statements, in the transaction it began if any.
type Ormer interface {
	Raw(query string, args ...any) RawSeter
	Begin() error
	BeginTx(ctx context.Context, opts *sql.TxOptions) error
	Commit() error
	Rollback() error
}

// NewOrm returns an Ormer on the default database.
func NewOrm() Ormer { return nil }
