package sqltext // want package:"sql=true edges=0"

// sqltext holds helpers that splice a table name (or a file name)
// their callers pass into the SQL they run: each call site binds it, so each
// constant a caller passes is a lock of its own.

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5"
)

// LockRow locks row id of table: the name is spliced with %s.
func LockRow(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want LockRow:`sinks\(\{sprintf\("SELECT id FROM %s WHERE id = \$1 FOR UPDATE", p2\)\}@p1\)`
	_, err := tx.Exec(ctx, fmt.Sprintf("SELECT id FROM %s WHERE id = $1 FOR UPDATE", table), id)
	return err
}

// Touch updates row id of table: the name is concatenated.
func Touch(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want Touch:`sinks\(\{"UPDATE " \+ p2 \+ " SET touched = true WHERE id = \$1"\}@p1\)`
	_, err := tx.Exec(ctx, "UPDATE "+table+" SET touched = true WHERE id = $1", id)
	return err
}

// LockQuoted locks row id of table, quoted as an identifier with an
// indexed %[1]q.
func LockQuoted(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want LockQuoted:`sinks\(\{sprintf\(.*%\[1\]q.*, p2\)\}@p1\)`
	_, err := tx.Exec(ctx, fmt.Sprintf("SELECT id FROM %[1]q WHERE %[1]q.id = $1 FOR UPDATE", table), id)
	return err
}

// LockShard locks row id of the shard's table: a number spliced with %d.
func LockShard(ctx context.Context, tx pgx.Tx, shard int, id int64) error { // want LockShard:`sinks\(\{sprintf\("SELECT id FROM events_%d WHERE id = \$1 FOR UPDATE", p2\)\}@p1\)`
	_, err := tx.Exec(ctx, fmt.Sprintf("SELECT id FROM events_%d WHERE id = $1 FOR UPDATE", shard), id)
	return err
}

// Execf runs a statement formatted from its caller's format and
// arguments, a printf-like wrapper.
func Execf(ctx context.Context, tx pgx.Tx, id int64, format string, args ...any) error { // want Execf:`sinks\(\{sprintf\(p3, p4\.\.\.\)\}@p1\)`
	_, err := tx.Exec(ctx, fmt.Sprintf(format, args...), id)
	return err
}

// LockBuilt locks row id of table, with the query written into a
// strings.Builder.
func LockBuilt(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want LockBuilt:`sinks\(\{"SELECT id FROM " \+ p2 \+ " WHERE id = \$1 FOR UPDATE"\}@p1\)`
	var b strings.Builder
	b.WriteString("SELECT id FROM ")
	b.WriteString(table)
	b.WriteByte(' ')
	fmt.Fprintf(&b, "WHERE id = $%d FOR UPDATE", 1)
	_, err := tx.Exec(ctx, b.String(), id)
	return err
}

// UpdateBuffered updates row id of table, with the statement written into
// a bytes.Buffer.
func UpdateBuffered(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want UpdateBuffered:`sinks\(\{"UPDATE " \+ p2 \+ " SET n = n \+ 1 WHERE id = \$1"\}@p1\)`
	var b bytes.Buffer
	b.WriteString("UPDATE ")
	b.WriteString(table)
	b.WriteString(" SET n = n + 1 WHERE id = $1")
	_, err := tx.Exec(ctx, b.String(), id)
	return err
}

// lockTemplate is a statement with a placeholder for the table.
const lockTemplate = `
	SELECT id FROM {table}
	WHERE id = $1 FOR UPDATE
`

// LockReplaced locks row id of table, named by replacing a placeholder of
// a constant template.
func LockReplaced(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want LockReplaced:`sinks\(\{strings\.TrimSpace\(strings\.ReplaceAll\(.*, "\{table\}", p2\)\)\}@p1\)`
	_, err := tx.Exec(ctx, strings.TrimSpace(strings.ReplaceAll(lockTemplate, "{table}", table)), id)
	return err
}

// LockColumns locks row id of table, selecting a constant list of columns
// joined with strings.Join.
func LockColumns(ctx context.Context, tx pgx.Tx, table string, id int64) error { // want LockColumns:`sinks\(\{"SELECT id, status FROM " \+ p2 \+ " WHERE id = \$1 FOR UPDATE"\}@p1\)`
	cols := strings.Join([]string{"id", "status"}, ", ")
	_, err := tx.Exec(ctx, "SELECT "+cols+" FROM "+table+" WHERE id = $1 FOR UPDATE", id)
	return err
}

// queries are the statements kept in .sql files.
//
//go:embed sql/*.sql
var queries embed.FS

// RunFile runs the statement of the file its caller names: a file name
// built from the caller's name.
func RunFile(ctx context.Context, tx pgx.Tx, name string, id int64) error { // want RunFile:`sinks\(\{file\("sql/" \+ p2 \+ ".sql"\)\}@p1\)`
	text, err := fs.ReadFile(queries, "sql/"+name+".sql")
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, string(text), id)
	return err
}

// query reads the statement of a named file with the embed.FS method.
func query(name string) string {
	text, err := queries.ReadFile("sql/lock_" + name + ".sql")
	if err != nil {
		panic(err)
	}
	return string(text)
}

// Lock runs the statement of the file named after the caller's object,
// through query.
func Lock(ctx context.Context, tx pgx.Tx, object string, id int64) error { // want Lock:`sinks\(\{file\("sql/lock_" \+ p2 \+ ".sql"\)\}@p1\)`
	_, err := tx.Exec(ctx, query(object), id)
	return err
}
