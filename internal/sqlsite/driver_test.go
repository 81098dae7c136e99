package sqlsite_test

import (
	"go/types"
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

const driverSrc = `package p

import (
	"context"
	"database/sql"
)

// DBTX is sqlc's interface.
type DBTX interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Querier is a hand-written interface without context.
type Querier interface {
	Exec(ctx context.Context, query string, args ...any) error
	QueryRow(query string, args ...any) *sql.Row
}

// Beginner can also start transactions.
type Beginner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
	Close() error
}

// Runner has an Exec that is no database call.
type Runner struct{}

func (Runner) Exec(n int) error { return nil }

// Job is an interface whose Exec takes no query.
type Job interface{ Exec(n int) error }

// BytesExec takes the query as bytes.
type BytesExec interface {
	Exec(ctx context.Context, query []byte) error
}

type NamedQuery string

// NamedExec takes the query as a named string type.
type NamedExec interface {
	Query(q NamedQuery) error
}

type Alias = *sql.DB

type Wrapper struct{ *sql.DB }

func DBExecContext(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, "UPDATE t SET x = 1 WHERE id = $1", 1)
}

func DBExec(db *sql.DB) { db.Exec("DELETE FROM t") }

func DBQueryContext(ctx context.Context, db *sql.DB) { db.QueryContext(ctx, "SELECT 1") }

func TxQueryRow(tx *sql.Tx) { tx.QueryRow("SELECT * FROM t WHERE id = $1 FOR UPDATE", 1) }

func TxExecContext(ctx context.Context, tx *sql.Tx) { tx.ExecContext(ctx, "UPDATE t SET x = 2") }

func ConnQueryRowContext(ctx context.Context, c *sql.Conn) {
	c.QueryRowContext(ctx, "SELECT pg_advisory_lock(1)")
}

func DBBeginTx(ctx context.Context, db *sql.DB) { db.BeginTx(ctx, nil) }

func DBBegin(db *sql.DB) { db.Begin() }

func ConnBeginTx(ctx context.Context, c *sql.Conn) { c.BeginTx(ctx, nil) }

func TxCommit(tx *sql.Tx) { tx.Commit() }

func TxRollback(tx *sql.Tx) { tx.Rollback() }

func DBConn(ctx context.Context, db *sql.DB) { db.Conn(ctx) }

func ConnClose(c *sql.Conn) { c.Close() }

func DBClose(db *sql.DB) { db.Close() }

func DBPrepare(db *sql.DB) { db.Prepare("UPDATE t SET x = $1") }

func TxPrepareContext(ctx context.Context, tx *sql.Tx) { tx.PrepareContext(ctx, "DELETE FROM t") }

func StmtExec(s *sql.Stmt) { s.Exec(1, 2) }

func StmtQueryRowContext(ctx context.Context, s *sql.Stmt) { s.QueryRowContext(ctx, 1) }

func StmtClose(s *sql.Stmt) { s.Close() }

func TxStmt(tx *sql.Tx, s *sql.Stmt) { tx.Stmt(s) }

func TxStmtContext(ctx context.Context, tx *sql.Tx, s *sql.Stmt) { tx.StmtContext(ctx, s) }

func DBStmt(ctx context.Context, c *sql.Conn) { c.PingContext(ctx) }

func RowsClose(r *sql.Rows) { r.Close() }

func QuerierExec(ctx context.Context, q Querier) { q.Exec(ctx, "UPDATE t SET x = 3", 1) }

func QuerierQueryRow(q Querier) { q.QueryRow("SELECT 1") }

func DBTXExecContext(ctx context.Context, q DBTX) { q.ExecContext(ctx, "UPDATE t SET x = 4") }

func BeginnerBeginTx(ctx context.Context, b Beginner) { b.BeginTx(ctx, nil) }

func BeginnerClose(b Beginner) { b.Close() }

func RunnerExec(r Runner) { r.Exec(1) }

func JobExec(j Job) { j.Exec(1) }

func AliasExec(db Alias) { db.Exec("DELETE FROM t") }

func WrapperExec(w Wrapper) { w.Exec("DELETE FROM t") }
`

func TestClassify(t *testing.T) {
	pkg := build(t, driverSrc)
	type want struct {
		kind     sqlsite.OpKind
		recvKind sqlsite.HandleKind
		recvType string
		query    int
		params   int
		nargs    int
		sql      []string // Resolve(Args[query]) when the argument is a string
	}
	tests := []struct {
		fn, method string
		want       want
	}{
		{"DBExecContext", "ExecContext", want{sqlsite.Query, sqlsite.Pool, "*database/sql.DB", 1, 2, 3, []string{"UPDATE t SET x = 1 WHERE id = $1"}}},
		{"DBExec", "Exec", want{sqlsite.Query, sqlsite.Pool, "*database/sql.DB", 0, 1, 2, []string{"DELETE FROM t"}}},
		{"DBQueryContext", "QueryContext", want{sqlsite.Query, sqlsite.Pool, "*database/sql.DB", 1, 2, 3, []string{"SELECT 1"}}},
		{"TxQueryRow", "QueryRow", want{sqlsite.Query, sqlsite.Tx, "*database/sql.Tx", 0, 1, 2, []string{"SELECT * FROM t WHERE id = $1 FOR UPDATE"}}},
		{"TxExecContext", "ExecContext", want{sqlsite.Query, sqlsite.Tx, "*database/sql.Tx", 1, 2, 3, []string{"UPDATE t SET x = 2"}}},
		{"ConnQueryRowContext", "QueryRowContext", want{sqlsite.Query, sqlsite.Conn, "*database/sql.Conn", 1, 2, 3, []string{"SELECT pg_advisory_lock(1)"}}},
		{"DBBeginTx", "BeginTx", want{sqlsite.Begin, sqlsite.Pool, "*database/sql.DB", -1, -1, 2, nil}},
		{"DBBegin", "Begin", want{sqlsite.Begin, sqlsite.Pool, "*database/sql.DB", -1, -1, 0, nil}},
		{"ConnBeginTx", "BeginTx", want{sqlsite.Begin, sqlsite.Conn, "*database/sql.Conn", -1, -1, 2, nil}},
		{"TxCommit", "Commit", want{sqlsite.Commit, sqlsite.Tx, "*database/sql.Tx", -1, -1, 0, nil}},
		{"TxRollback", "Rollback", want{sqlsite.Rollback, sqlsite.Tx, "*database/sql.Tx", -1, -1, 0, nil}},
		{"DBConn", "Conn", want{sqlsite.Acquire, sqlsite.Pool, "*database/sql.DB", -1, -1, 1, nil}},
		{"ConnClose", "Close", want{sqlsite.Release, sqlsite.Conn, "*database/sql.Conn", -1, -1, 0, nil}},
		{"DBClose", "Close", want{sqlsite.NoOp, sqlsite.Pool, "*database/sql.DB", -1, -1, 0, nil}},
		{"DBPrepare", "Prepare", want{sqlsite.Prepare, sqlsite.Pool, "*database/sql.DB", 0, -1, 1, []string{"UPDATE t SET x = $1"}}},
		{"TxPrepareContext", "PrepareContext", want{sqlsite.Prepare, sqlsite.Tx, "*database/sql.Tx", 1, -1, 2, []string{"DELETE FROM t"}}},
		{"StmtExec", "Exec", want{sqlsite.StmtRun, sqlsite.NotHandle, "*database/sql.Stmt", -1, 0, 1, nil}},
		{"StmtQueryRowContext", "QueryRowContext", want{sqlsite.StmtRun, sqlsite.NotHandle, "*database/sql.Stmt", -1, 1, 2, nil}},
		{"StmtClose", "Close", want{sqlsite.NoOp, sqlsite.NotHandle, "*database/sql.Stmt", -1, -1, 0, nil}},
		{"TxStmt", "Stmt", want{sqlsite.BindStmt, sqlsite.Tx, "*database/sql.Tx", 0, -1, 1, nil}},
		{"TxStmtContext", "StmtContext", want{sqlsite.BindStmt, sqlsite.Tx, "*database/sql.Tx", 1, -1, 2, nil}},
		{"DBStmt", "PingContext", want{sqlsite.NoOp, sqlsite.Conn, "*database/sql.Conn", -1, -1, 1, nil}},
		{"RowsClose", "Close", want{sqlsite.NoOp, sqlsite.NotHandle, "*database/sql.Rows", -1, -1, 0, nil}},
		{"QuerierExec", "Exec", want{sqlsite.Query, sqlsite.Maybe, "example.com/p.Querier", 1, 2, 3, []string{"UPDATE t SET x = 3"}}},
		{"QuerierQueryRow", "QueryRow", want{sqlsite.Query, sqlsite.Maybe, "example.com/p.Querier", 0, 1, 2, []string{"SELECT 1"}}},
		{"DBTXExecContext", "ExecContext", want{sqlsite.Query, sqlsite.Maybe, "example.com/p.DBTX", 1, 2, 3, []string{"UPDATE t SET x = 4"}}},
		{"BeginnerBeginTx", "BeginTx", want{sqlsite.Begin, sqlsite.Maybe, "example.com/p.Beginner", -1, -1, 2, nil}},
		{"BeginnerClose", "Close", want{sqlsite.NoOp, sqlsite.Maybe, "example.com/p.Beginner", -1, -1, 0, nil}},
		{"RunnerExec", "Exec", want{sqlsite.NoOp, sqlsite.NotHandle, "example.com/p.Runner", -1, -1, 1, nil}},
		{"JobExec", "Exec", want{sqlsite.NoOp, sqlsite.NotHandle, "example.com/p.Job", -1, -1, 1, nil}},
		{"AliasExec", "Exec", want{sqlsite.Query, sqlsite.Pool, "example.com/p.Alias", 0, 1, 2, []string{"DELETE FROM t"}}},
		{"WrapperExec", "Exec", want{sqlsite.Query, sqlsite.Pool, "*database/sql.DB", 0, 1, 2, []string{"DELETE FROM t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			op := noRules.Classify(onlyCall(t, pkg, tt.fn, tt.method))
			recvType := ""
			if op.Recv != nil {
				recvType = op.Recv.Type().String()
			}
			var sql []string
			if op.Query >= 0 && op.Query < len(op.Args) {
				if b, ok := op.Args[op.Query].Type().Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
					sql = sqlsite.Resolve(op.Args[op.Query]).SQL
				}
			}
			got := want{op.Kind, op.RecvKind, recvType, op.Query, op.Params, len(op.Args), sql}
			if got.kind != tt.want.kind || got.recvKind != tt.want.recvKind || got.recvType != tt.want.recvType ||
				got.query != tt.want.query || got.params != tt.want.params || got.nargs != tt.want.nargs ||
				!slices.Equal(got.sql, tt.want.sql) {
				t.Errorf("Classify(%s) = %+v, want %+v", tt.method, got, tt.want)
			}
			if op.Batch != -1 || op.Func != -1 {
				t.Errorf("Classify(%s): Batch = %d, Func = %d, want -1, -1", tt.method, op.Batch, op.Func)
			}
		})
	}
}

// TestClassifyStmtArgument checks that BindStmt's Query index points at the
// *sql.Stmt argument.
func TestClassifyStmtArgument(t *testing.T) {
	pkg := build(t, driverSrc)
	for _, fn := range []string{"TxStmt", "TxStmtContext"} {
		t.Run(fn, func(t *testing.T) {
			op := noRules.Classify(onlyCall(t, pkg, fn, fn[len("Tx"):]))
			if got := op.Args[op.Query].Type().String(); got != "*database/sql.Stmt" {
				t.Errorf("Args[Query] has type %s, want *database/sql.Stmt", got)
			}
		})
	}
}

// TestClassifyPlainFunction checks that a package-level function outside pgx
// is no database operation, even when it takes a query.
func TestClassifyPlainFunction(t *testing.T) {
	pkg := build(t, `package p

import "database/sql"

func Exec(db *sql.DB, q string) {}

func F(db *sql.DB) { Exec(db, "DELETE FROM t") }
`)
	op := noRules.Classify(onlyCall(t, pkg, "F", "Exec"))
	if op.Kind != sqlsite.NoOp || op.Recv != nil || op.RecvKind != sqlsite.NotHandle {
		t.Errorf("Classify = {Kind: %v, Recv: %v, RecvKind: %v}, want NoOp without receiver", op.Kind, op.Recv, op.RecvKind)
	}
}

func TestKindOf(t *testing.T) {
	pkg := build(t, driverSrc)
	var sqlPkg *types.Package
	for _, imp := range pkg.Pkg.Imports() {
		if imp.Path() == "database/sql" {
			sqlPkg = imp
		}
	}
	if sqlPkg == nil {
		t.Fatal("database/sql not imported")
	}
	sqlType := func(name string) types.Type { return sqlPkg.Scope().Lookup(name).Type() }
	local := func(name string) types.Type { return pkg.Pkg.Scope().Lookup(name).Type() }
	ptr := types.NewPointer
	tests := []struct {
		name string
		typ  types.Type
		want sqlsite.HandleKind
	}{
		{"*sql.DB", ptr(sqlType("DB")), sqlsite.Pool},
		{"sql.DB", sqlType("DB"), sqlsite.Pool},
		{"*sql.Conn", ptr(sqlType("Conn")), sqlsite.Conn},
		{"*sql.Tx", ptr(sqlType("Tx")), sqlsite.Tx},
		{"**sql.DB", ptr(ptr(sqlType("DB"))), sqlsite.NotHandle},
		{"*sql.Stmt", ptr(sqlType("Stmt")), sqlsite.NotHandle},
		{"*sql.Rows", ptr(sqlType("Rows")), sqlsite.NotHandle},
		{"*sql.Row", ptr(sqlType("Row")), sqlsite.NotHandle},
		{"sql.Result", sqlType("Result"), sqlsite.NotHandle},
		{"DBTX", local("DBTX"), sqlsite.Maybe},
		{"Querier", local("Querier"), sqlsite.Maybe},
		{"Beginner", local("Beginner"), sqlsite.Maybe},
		{"NamedExec", local("NamedExec"), sqlsite.Maybe},
		{"Job", local("Job"), sqlsite.NotHandle},
		{"BytesExec", local("BytesExec"), sqlsite.NotHandle},
		{"Runner", local("Runner"), sqlsite.NotHandle},
		{"Wrapper", local("Wrapper"), sqlsite.NotHandle},
		{"Alias", local("Alias"), sqlsite.Pool},
		{"string", types.Typ[types.String], sqlsite.NotHandle},
		{"any", types.Universe.Lookup("any").Type(), sqlsite.NotHandle},
		{"nil", nil, sqlsite.NotHandle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noRules.KindOf(tt.typ); got != tt.want {
				t.Errorf("KindOf(%v) = %v, want %v", tt.typ, got, tt.want)
			}
		})
	}
}

func TestHandleKindString(t *testing.T) {
	tests := []struct {
		k    sqlsite.HandleKind
		want string
	}{
		{sqlsite.NotHandle, "none"},
		{sqlsite.Pool, "pool"},
		{sqlsite.Conn, "connection"},
		{sqlsite.Tx, "transaction"},
		{sqlsite.Maybe, "handle"},
		{sqlsite.HandleKind(99), "none"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.k.String(); got != tt.want {
				t.Errorf("HandleKind(%d).String() = %q, want %q", tt.k, got, tt.want)
			}
		})
	}
}

func TestIsDriverPackage(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"database/sql", true},
		{"database/sql/driver", true},
		{"github.com/jackc/pgx/v5", true},
		{"github.com/jackc/pgx/v5/pgxpool", true},
		{"github.com/jackc/pgx/v5/pgconn", true},
		{"github.com/jackc/pgx/v4", true},
		{"github.com/jackc/pgx/v4/pgxpool", true},
		{"github.com/jackc/pgx/v4/stdlib", true},
		{"github.com/jackc/pgx/v50", false},
		{"github.com/jackc/pgx", false},
		{"example.com/db", false},
		{"database", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := sqlsite.IsDriverPackage(tt.path); got != tt.want {
				t.Errorf("IsDriverPackage(%q) = %t, want %t", tt.path, got, tt.want)
			}
		})
	}
}

// noRules declares no user rules: the tests of the models need none.
var noRules *sqlsite.Rules
