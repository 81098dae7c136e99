package queries // want package:"sql=true edges=0"

// The package reads its statements from embedded .sql files and
// returns their text. It imports no database API: it is analysed because it
// embeds SQL, so that the text reaches the callers that run it.

import "embed"

//go:embed sql/*.sql
var files embed.FS

// Get returns the text of sql/<name>.sql.
func Get(name string) string { // want Get:`text\(\{file\("sql/" \+ p0 \+ ".sql"\)\}\)`
	b, err := files.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(err)
	}
	return string(b)
}
