// Package orm is a stand-in for beego v2's client/orm, written for
// pglockorder's tests: the Go module proxy does not serve beego, and
// pglockorder models the library by its import path and the names and
// shapes of its methods, never by its bodies. It declares the part of the
// API that runs raw SQL and transactions, with the same names and
// signatures; the bodies do nothing.
package orm

import (
	"context"
	"database/sql"
)

// Params is one row of Values.
type Params map[string]any

// ParamsList is one row of ValuesList.
type ParamsList []any

// RawSeter runs a raw statement.
type RawSeter interface {
	Exec() (sql.Result, error)
	QueryRow(containers ...any) error
	QueryRows(containers ...any) (int64, error)
	SetArgs(args ...any) RawSeter
	Values(container *[]Params, cols ...string) (int64, error)
	ValuesList(container *[]ParamsList, cols ...string) (int64, error)
	ValuesFlat(container *ParamsList, cols ...string) (int64, error)
	RowsToMap(result *Params, keyCol, valueCol string) (int64, error)
	RowsToStruct(ptrStruct any, keyCol, valueCol string) (int64, error)
}

// DQL reads.
type DQL interface {
	Raw(query string, args ...any) RawSeter
	RawWithCtx(ctx context.Context, query string, args ...any) RawSeter
}

// QueryExecutor runs statements: an Ormer or a TxOrmer.
type QueryExecutor interface {
	DQL
}

// TxBeginner begins transactions.
type TxBeginner interface {
	Begin() (TxOrmer, error)
	BeginWithCtx(ctx context.Context) (TxOrmer, error)
	BeginWithOpts(opts *sql.TxOptions) (TxOrmer, error)
	BeginWithCtxAndOpts(ctx context.Context, opts *sql.TxOptions) (TxOrmer, error)
	DoTx(task func(ctx context.Context, txOrm TxOrmer) error) error
	DoTxWithCtx(ctx context.Context, task func(ctx context.Context, txOrm TxOrmer) error) error
	DoTxWithOpts(opts *sql.TxOptions, task func(ctx context.Context, txOrm TxOrmer) error) error
	DoTxWithCtxAndOpts(ctx context.Context, opts *sql.TxOptions, task func(ctx context.Context, txOrm TxOrmer) error) error
}

// TxCommitter ends a transaction.
type TxCommitter interface {
	Commit() error
	Rollback() error
	RollbackUnlessCommit() error
}

// Ormer runs statements on the pool and begins transactions.
type Ormer interface {
	QueryExecutor
	TxBeginner
}

// TxOrmer runs statements in a transaction.
type TxOrmer interface {
	QueryExecutor
	TxCommitter
}

// NewOrm returns an Ormer on the default database.
func NewOrm() Ormer { return nil }
