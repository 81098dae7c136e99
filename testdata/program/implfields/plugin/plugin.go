// Package plugin declares a persistence layer's interfaces, as a service
// with several database back ends does: each back end implements DB and
// the Tx its BeginTx returns, and keeps its transaction in a field of its
// own choosing.
package plugin

import (
	"context"
	"database/sql"
)

// Maps are the statements on a run's child rows.
type Maps interface {
	LockRun(ctx context.Context, run string) error
	DeleteActivities(ctx context.Context, run string, ids []int64) error
	DeleteChildren(ctx context.Context, run string, ids []int64) error
	DeleteAllActivities(ctx context.Context, run string) error
	DeleteAllChildren(ctx context.Context, run string) error
}

// Tx is a back end's transaction.
type Tx interface {
	Maps
	Commit() error
	Rollback() error
}

// DB is a back end.
type DB interface {
	Maps
	BeginTx(ctx context.Context) (Tx, error)
}

// Conn is what a back end runs statements on: its pool, or its
// transaction.
type Conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
