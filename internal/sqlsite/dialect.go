package sqlsite

import "strings"

// SQL dialects, as pglockorder names them.
const (
	PostgreSQL = "postgresql"
	MySQL      = "mysql"
	MariaDB    = "mariadb"
	SQLite     = "sqlite"
	SQLServer  = "sqlserver"
	ClickHouse = "clickhouse"
)

// Dialects lists the dialect names a configuration may use.
var Dialects = []string{PostgreSQL, MySQL, MariaDB, SQLite, SQLServer, ClickHouse}

// driverDialects maps the import paths of database drivers (and of ORM
// dialect packages that import one) to the dialect they speak. A path
// matches itself and the packages below it.
var driverDialects = []struct{ path, dialect string }{
	{"github.com/jackc/pgx", PostgreSQL},
	{"github.com/lib/pq", PostgreSQL},
	{"github.com/uptrace/bun/driver/pgdriver", PostgreSQL},
	{"github.com/uptrace/bun/dialect/pgdialect", PostgreSQL},
	{"gorm.io/driver/postgres", PostgreSQL},
	{"github.com/go-pg/pg", PostgreSQL},
	{"github.com/go-sql-driver/mysql", MySQL},
	{"github.com/go-mysql-org/go-mysql/driver", MySQL},
	{"github.com/ziutek/mymysql/godrv", MySQL},
	{"gorm.io/driver/mysql", MySQL},
	{"github.com/uptrace/bun/dialect/mysqldialect", MySQL},
	{"modernc.org/sqlite", SQLite},
	{"github.com/mattn/go-sqlite3", SQLite},
	{"github.com/glebarez/go-sqlite", SQLite},
	{"github.com/glebarez/sqlite", SQLite},
	{"github.com/ncruces/go-sqlite3", SQLite},
	{"gorm.io/driver/sqlite", SQLite},
	{"github.com/uptrace/bun/dialect/sqlitedialect", SQLite},
	{"github.com/tursodatabase/libsql-client-go/libsql", SQLite},
	{"zombiezen.com/go/sqlite", SQLite},
	{"crawshaw.io/sqlite", SQLite},
	{"github.com/microsoft/go-mssqldb", SQLServer},
	{"github.com/denisenkom/go-mssqldb", SQLServer},
	{"gorm.io/driver/sqlserver", SQLServer},
	{"github.com/ClickHouse/clickhouse-go", ClickHouse},
}

// DriverDialect returns the dialect of the database driver at import path
// path, or "" when path is no driver pglockorder knows.
func DriverDialect(path string) string {
	for _, d := range driverDialects {
		if path == d.path || strings.HasPrefix(path, d.path+"/") {
			return d.dialect
		}
	}
	return ""
}

// OpenDialect returns the dialect of a database/sql driver name as passed
// to sql.Open ("mysql", "sqlite3", "pgx", ...), or "".
func OpenDialect(name string) string {
	switch strings.ToLower(name) {
	case "postgres", "postgresql", "pgx", "pgx/v5", "pgx/v4", "cloudsqlpostgres":
		return PostgreSQL
	case "mysql", "nrmysql":
		return MySQL
	case "sqlite", "sqlite3", "libsql":
		return SQLite
	case "sqlserver", "mssql":
		return SQLServer
	case "clickhouse":
		return ClickHouse
	}
	return ""
}

// ForeignSyntax returns what in sql PostgreSQL rejects but MySQL, MariaDB or
// SQLite accept ("backtick identifiers", "ON DUPLICATE KEY UPDATE", ...), or
// "". Quoted strings, quoted identifiers and comments are skipped.
func ForeignSyntax(sql string) string {
	var words strings.Builder
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '`':
			return "backtick identifiers"
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(sql) && sql[j] != c {
				j++
			}
			i = j
			words.WriteByte(' ')
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			words.WriteByte(' ')
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql)
			} else {
				i += end + 3
			}
			words.WriteByte(' ')
		default:
			words.WriteByte(c)
		}
	}
	text := " " + strings.Join(strings.Fields(strings.ToUpper(words.String())), " ") + " "
	for _, f := range foreignPhrases {
		if strings.Contains(text, f) {
			return strings.TrimSpace(f)
		}
	}
	return ""
}

// foreignPhrases are phrases of other dialects that PostgreSQL's grammar
// has no place for, spaced and upper-cased as ForeignSyntax normalises them.
var foreignPhrases = []string{
	" LOCK IN SHARE MODE ",
	" ON DUPLICATE KEY UPDATE ",
	" INSERT IGNORE ",
	" REPLACE INTO ",
	" INSERT OR REPLACE ",
	" INSERT OR IGNORE ",
	" AUTO_INCREMENT ",
	" STRAIGHT_JOIN ",
	" SQL_CALC_FOUND_ROWS ",
	" UNLOCK TABLES ",
	" LOCK TABLES ",
}
