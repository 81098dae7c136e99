package lockmodel

import (
	"strings"
	"sync"
	"testing"
)

// TestSchemasSideBySide analyses the same statements with two schemas and
// none, from many goroutines at once: each analysis sees only the schema it
// was given, so that one process can analyse modules whose schemas differ
// (run with -race, it also checks that no schema is shared state).
func TestSchemasSideBySide(t *testing.T) {
	withFK := NewSchema()
	if err := withFK.Parse(`CREATE TABLE posts (id bigint PRIMARY KEY);
CREATE TABLE comments (id bigint PRIMARY KEY, post_id bigint REFERENCES posts (id));`); err != nil {
		t.Fatal(err)
	}
	noFK := NewSchema()
	if err := noFK.Parse(`CREATE TABLE posts (id bigint PRIMARY KEY);
CREATE TABLE comments (id bigint PRIMARY KEY, post_id bigint);`); err != nil {
		t.Fatal(err)
	}
	const insert = "INSERT INTO comments (id, post_id) VALUES ($1, $2)"
	const renumber = "UPDATE posts SET id = $2 WHERE id = $1"
	text := func(s *Schema, sql string) string {
		var out []string
		for _, e := range s.Analyze(sql).Effects {
			out = append(out, render(e))
		}
		return strings.Join(out, "; ")
	}
	want := map[*Schema]map[string]string{
		withFK: {
			insert:   "table comments ROW EXCLUSIVE; table posts ROW SHARE; row posts FOR KEY SHARE",
			renumber: "table posts ROW EXCLUSIVE; row posts FOR UPDATE",
		},
		noFK: {
			insert:   "table comments ROW EXCLUSIVE",
			renumber: "table posts ROW EXCLUSIVE; row posts FOR UPDATE",
		},
		nil: {
			insert: "table comments ROW EXCLUSIVE",
			// Without a schema, only the naming convention says id
			// is a key, and it does not make the update FOR UPDATE.
			renumber: "table posts ROW EXCLUSIVE; row posts FOR NO KEY UPDATE",
		},
	}
	var wg sync.WaitGroup
	for range 8 {
		for s, byStmt := range want {
			for sql, w := range byStmt {
				wg.Go(func() {
					if got := text(s, sql); got != w {
						t.Errorf("%s (schema %p):\ngot  %s\nwant %s", sql, s, got, w)
					}
				})
			}
		}
	}
	wg.Wait()
}
