package labels // want package:"sql=true edges=[0-9]+"

// This package checks what a report says a statement runs on when a
// helper runs it on an interface (a DBTX, a Querier, the handle a context
// carries) that its callers bind to a transaction, a pool or a connection:
// each path names the handle its caller passed, not "the caller's handle".

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DBTX is what sqlc generates: a transaction, a connection and the pool
// all offer it.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func lockJob(ctx context.Context, db DBTX, id int64) error {
	_, err := db.Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id)
	return err
}

func lockAccount(ctx context.Context, db DBTX, id int64) error {
	_, err := db.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// Claim locks the job, then the account, in a transaction.
func Claim(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR UPDATE@L0\)`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := lockJob(ctx, tx, id); err != nil {
		return err
	}
	if err := lockAccount(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Refund locks the account, then the job, on a dedicated connection that
// it put in a transaction with a BEGIN of its own: the locks are held
// until the COMMIT, and the report says "in a transaction".
func Refund(ctx context.Context, conn *pgx.Conn, id int64) error { // want Refund:`locks\(.*row:accounts FOR UPDATE@p1, .*row:jobs FOR UPDATE@p1\) holds`
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		return err
	}
	if err := lockAccount(ctx, conn, id); err != nil {
		return err
	}
	if err := lockJob(ctx, conn, id); err != nil { // want `(?s)lock-order inversion: rows of accounts and rows of jobs.*path 1: labels.Refund holds.*takes: +labels/labels.go:\d+:\d+: calls labels.lockAccount\n +labels/labels.go:\d+:\d+: SELECT \.\.\. FOR UPDATE in a transaction \(in labels.lockAccount\)\n.*path 2: labels.Claim holds.*takes: +labels/labels.go:\d+:\d+: calls labels.lockJob\n +labels/labels.go:\d+:\d+: SELECT \.\.\. FOR UPDATE in a transaction \(in labels.lockJob\)`
		return err
	}
	_, err := conn.Exec(ctx, "COMMIT")
	return err
}

// Peek runs both helpers on the pool: autocommit, nothing is held between
// them (the near miss: same helpers, same order as Refund, no finding).
func Peek(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want Peek:`locks\(.*row:accounts FOR UPDATE@F, .*row:jobs FOR UPDATE@F\)`
	if err := lockAccount(ctx, pool, id); err != nil {
		return err
	}
	return lockJob(ctx, pool, id)
}

// Notify holds its transaction's lock on the invoice while a helper runs on
// the pool: a wait on a second connection, which the report names as the
// pool.
func Notify(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want Notify:`locks\(.*row:invoices FOR UPDATE@L0, .*row:invoices FOR NO KEY UPDATE@p1\)`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, "UPDATE invoices SET sent = true WHERE id = $1", id); err != nil { // want `(?s)application self-deadlock: labels.Notify holds rows of invoices.*then waits: +labels/labels.go:\d+:\d+: UPDATE on the pool\n  fix:`
		return err
	}
	return tx.Commit(ctx)
}

// SQLTX is database/sql's side of a DBTX.
type SQLTX interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func touchLedger(ctx context.Context, db SQLTX, id int64) error {
	_, err := db.ExecContext(ctx, "UPDATE ledger SET n = n + 1 WHERE id = $1", id)
	return err
}

func touchBalance(ctx context.Context, db SQLTX, id int64) error {
	_, err := db.ExecContext(ctx, "UPDATE balances SET n = n + 1 WHERE id = $1", id)
	return err
}

// Post updates the ledger, then the balance, in a transaction begun on a
// *sql.Conn.
func Post(ctx context.Context, db *sql.DB, id int64) error { // want Post:`locks\(.*row:ledger FOR NO KEY UPDATE@L1, .*row:balances FOR NO KEY UPDATE@L1\)`
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := touchLedger(ctx, tx, id); err != nil {
		return err
	}
	if err := touchBalance(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}

// Reverse updates the balance, then the ledger, on a *sql.Conn put in a
// transaction by a BEGIN sent as SQL.
func Reverse(ctx context.Context, db *sql.DB, id int64) error { // want Reverse:`locks\(.*row:balances FOR NO KEY UPDATE@L0, .*row:ledger FOR NO KEY UPDATE@L0\)`
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	if err := touchBalance(ctx, c, id); err != nil {
		return err
	}
	if err := touchLedger(ctx, c, id); err != nil { // want `(?s)lock-order inversion: rows of balances and rows of ledger.*path \d: labels.Reverse holds.*calls labels.touchBalance\n +labels/labels.go:\d+:\d+: UPDATE in a transaction \(in labels.touchBalance\)`
		return err
	}
	_, err = c.ExecContext(ctx, "COMMIT")
	return err
}
