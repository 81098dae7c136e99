package queries // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// byName holds the statements, by name.
var byName = map[string]string{
	"lock_runner": "SELECT id FROM cm_runners WHERE id = $1 FOR UPDATE",
	"requeue":     "UPDATE cm_builds SET status = 'queued' WHERE runner_id = $1",
	"stats":       "SELECT count(*) FROM cm_builds",
}

// Get returns the named statement.
func Get(name string) string { // want Get:`text\(\{file\(p0\)\}\)`
	return byName[name]
}

// DBTX runs statements.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}
