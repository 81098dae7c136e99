package sqlsite

import "testing"

func TestForeignSyntax(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT `id` FROM `jobs` WHERE id = ? FOR UPDATE":              "backtick identifiers",
		"SELECT id FROM jobs WHERE id = ? LOCK IN SHARE MODE":          "LOCK IN SHARE MODE",
		"INSERT INTO t (a) VALUES (?) ON DUPLICATE KEY UPDATE a = a+1": "ON DUPLICATE KEY UPDATE",
		"insert   ignore into t values (1)":                            "INSERT IGNORE",
		"REPLACE INTO t VALUES (1)":                                    "REPLACE INTO",
		"LOCK TABLES t WRITE":                                          "LOCK TABLES",
		// PostgreSQL's own syntax, and foreign words in strings and
		// comments.
		"SELECT id FROM jobs WHERE id = $1 FOR UPDATE":                       "",
		"LOCK TABLE jobs IN SHARE MODE":                                      "",
		"INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 1":       "",
		"SELECT 'ON DUPLICATE KEY UPDATE `x`' -- REPLACE INTO\n FROM t":      "",
		`SELECT "lock in share mode" FROM t /* INSERT IGNORE */ WHERE a = 1`: "",
	} {
		if got := ForeignSyntax(sql); got != want {
			t.Errorf("ForeignSyntax(%q) = %q, want %q", sql, got, want)
		}
	}
}

func TestDriverDialect(t *testing.T) {
	for path, want := range map[string]string{
		"github.com/go-sql-driver/mysql":      MySQL,
		"modernc.org/sqlite":                  SQLite,
		"modernc.org/sqlite/lib":              SQLite,
		"github.com/mattn/go-sqlite3":         SQLite,
		"github.com/jackc/pgx/v5/stdlib":      PostgreSQL,
		"github.com/lib/pq":                   PostgreSQL,
		"github.com/lib/pqx":                  "",
		"database/sql":                        "",
		"github.com/go-sql-driver/mysqlextra": "",
	} {
		if got := DriverDialect(path); got != want {
			t.Errorf("DriverDialect(%q) = %q, want %q", path, got, want)
		}
	}
}
