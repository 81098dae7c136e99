package sqlq // want package:"sql=true edges=0"

// Package sqlq keeps SQL text for other packages: functions that return it
// and column lists they splice in. Its callers see the text through the
// functions' summaries and the lists' facts.

import (
	"embed"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Tx is the transaction the package's helpers take.
type Tx = pgx.Tx

// DockColumns are the columns of sx_docks.
var DockColumns = []string{"id", "bay_id", "state"} // want DockColumns:`strings\["id" "bay_id" "state"\]`

// LockSQL returns the statement that locks one row of table.
func LockSQL(table string, cols []string) string { // want LockSQL:`^text\(\{sprintf\("SELECT %s FROM %s WHERE id = \$1 FOR UPDATE", strings.Join\(p1..., ", "\), p0\)\}\)$`
	return fmt.Sprintf("SELECT %s FROM %s WHERE id = $1 FOR UPDATE", strings.Join(cols, ", "), table)
}

//go:embed sql/*.sql
var files embed.FS

// Load returns the named query of sql/.
func Load(name string) string { // want Load:`text\(`
	b, err := files.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Describe returns a message, no SQL: it has no summary.
func Describe(table string) string {
	return "rows of " + table
}
