// Package pgtest connects tests to a real PostgreSQL server.
//
// The tests that prove pglockorder's findings (the conflict matrices, the
// reproducers of every corpus scenario) need a server they may create and
// drop databases on. They find it through the PGLOCKORDER_TEST_DSN
// environment variable, which .ci/run sets after starting a throwaway
// cluster on 127.0.0.1; without it they skip and say how to run them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pglockorder/pglockorder/internal/testenv"
)

// EnvDSN names the environment variable that holds the server's connection
// string, for example postgres://postgres@127.0.0.1:55432/postgres.
const EnvDSN = "PGLOCKORDER_TEST_DSN"

// DSN returns the test server's connection string, or skips the test when
// none is configured.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		testenv.Skip(t, "a PostgreSQL server ("+EnvDSN+")", fmt.Sprintf("run bash .ci/run (it starts one on 127.0.0.1), "+
			"or set %s=postgres://USER@HOST:PORT/DB?sslmode=disable for a superuser of a server you may create databases on", EnvDSN))
	}
	return dsn
}

// ScratchDB creates an empty database for the test, drops it when the test
// ends, and returns its connection string. It skips like DSN.
func ScratchDB(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to %s: %v", EnvDSN, err)
	}
	defer func() { _ = admin.Close(ctx) }()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("naming the scratch database: %v", err)
	}
	name := "pglockorder_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating scratch database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("dropping scratch database %s: %v", name, err)
			return
		}
		defer func() { _ = c.Close(ctx) }()
		if _, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping scratch database %s: %v", name, err)
		}
	})
	return WithDatabase(dsn, name)
}

// WithDatabase returns dsn with the database replaced by name. It handles
// both forms libpq accepts: URLs (postgres://...) and key=value strings.
func WithDatabase(dsn, name string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		q := u.Query()
		q.Del("dbname")
		u.RawQuery = q.Encode()
		return u.String()
	}
	// In key=value form a later keyword overrides an earlier one.
	return dsn + " dbname=" + name
}

// Connect opens one session on dsn and closes it when the test ends.
func Connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// Exec runs sql (one or more statements, simple protocol) on c and fails
// the test on error.
func Exec(t testing.TB, c *pgx.Conn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.PgConn().Exec(ctx, sql).Close(); err != nil {
		t.Fatalf("%s: %v", sql, fmt.Errorf("exec: %w", err))
	}
}
