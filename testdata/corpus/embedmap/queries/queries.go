package queries // want package:"sql=true edges=[0-9]+"

// The statements are loaded from sql/ at init, one per file, keyed by the
// file's name without ".sql".

import (
	"context"
	"embed"
	"io/fs"
	"path"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed sql/*.sql
var files embed.FS

var byName = load()

func load() map[string]string {
	out := map[string]string{}
	entries, err := fs.ReadDir(files, "sql")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		b, err := files.ReadFile(path.Join("sql", e.Name()))
		if err != nil {
			panic(err)
		}
		out[strings.TrimSuffix(e.Name(), ".sql")] = string(b)
	}
	return out
}

// Get returns the statement of sql/<name>.sql.
func Get(name string) string { // want Get:`text\(\{file\("sql/" \+ p0 \+ ".sql"\)\}\)`
	q, ok := byName[name]
	if !ok {
		panic("queries: no statement " + name)
	}
	return q
}

// DBTX runs statements.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Exec runs the named statement on q.
func Exec(ctx context.Context, q DBTX, name string, args ...any) error { // want Exec:`sinks\(\{file\("sql/" \+ p2 \+ ".sql"\)\}@p1\)`
	_, err := q.Exec(ctx, Get(name), args...)
	return err
}
