package lockmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree creates files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDiscoverSchema builds a module with every layout DiscoverSchema
// knows, and checks which files it reads, in which order, and what the
// schema then knows: down sections and down files are never applied, a
// later migration's DROP TABLE and ALTER TABLE win, and query files, test
// fixtures and nested modules are left alone.
func TestDiscoverSchema(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod": "module m\n",
		// goose, numbered so that 10 comes after 2.
		"db/goose/2_members.sql": "-- +goose Up\n-- +goose StatementBegin\nCREATE TABLE orgs (id bigint PRIMARY KEY);\n" +
			"CREATE TABLE members (org_id bigint REFERENCES orgs, user_id bigint, role text);\n-- +goose StatementEnd\n" +
			"-- +goose Down\nDROP TABLE members;\nDROP TABLE orgs;\n",
		"db/goose/10_members_key.sql": "-- +goose Up\nALTER TABLE members ADD PRIMARY KEY (org_id, user_id);\n-- +goose Down\nALTER TABLE members DROP CONSTRAINT members_pkey;\n",
		// golang-migrate.
		"migrate/000001_jobs.up.sql":   "CREATE TABLE jobs (id bigint PRIMARY KEY, queue text);\nCREATE TABLE scratch (id int);\n",
		"migrate/000001_jobs.down.sql": "DROP TABLE jobs;\n",
		"migrate/000002_drop.up.sql":   "DROP TABLE scratch;\n",
		// dbmate, tern, atlas.
		"db/migrations/20240101_a.sql": "-- migrate:up\nCREATE TABLE invoices (id bigint PRIMARY KEY, org_id bigint REFERENCES orgs ON DELETE CASCADE);\n-- migrate:down\nDROP TABLE invoices;\n",
		"tern/001_t.sql":               "CREATE TABLE ledgers (id bigint PRIMARY KEY);\n---- create above / drop below ----\nDROP TABLE ledgers;\n",
		"atlas/20240101.sql":           "CREATE TABLE audits (id bigint PRIMARY KEY);\n",
		"atlas/atlas.sum":              "h1:x\n",
		// sqlc's schema, with a statement pg_query cannot parse.
		"sqlc.yaml":                      "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: \"internal/sqlcschema\"\n    queries: \"internal/queries\"\n",
		"internal/sqlcschema/tables.sql": "CREATE TABLE tags (name text PRIMARY KEY);\nINSERT INTO `tags` VALUES (1);\n",
		"internal/queries/q.sql":         "-- name: GetTag :one\nSELECT * FROM tags WHERE name = $1;\n",
		// Not the database's schema.
		"testdata/schema.sql":         "CREATE TABLE fixture (id int PRIMARY KEY);\n",
		"tools/go.mod":                "module tools\n",
		"tools/migrations/1_x.sql":    "CREATE TABLE nested (id int PRIMARY KEY);\n",
		"examples/demo/schema.sql":    "CREATE TABLE demo (id int PRIMARY KEY);\n",
		"sql/schema.sql":              "CREATE TABLE settings (key text PRIMARY KEY);\n",
		"schema/mysql/v8/schema.sql":  "CREATE TABLE mysqlonly (id int PRIMARY KEY);\n",
		"driver/riversqlite/1.up.sql": "CREATE TABLE sqliteonly (id int PRIMARY KEY);\n",
		"internal/store/random.sql":   "CREATE TABLE random (id int PRIMARY KEY);\n",
	})
	s, sources, err := DiscoverSchema(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, src := range sources {
		got = append(got, src.String())
	}
	want := []string{
		"atlas/20240101.sql (atlas): 1 tables, 1 keys",
		"db/goose/2_members.sql (goose): 2 tables, 1 keys, 1 foreign keys",
		"db/goose/10_members_key.sql (goose): 1 keys",
		"db/migrations/20240101_a.sql (dbmate): 1 tables, 1 keys, 1 foreign keys",
		"internal/sqlcschema/tables.sql (sqlc): 1 tables, 1 keys, 1 statements skipped",
		"migrate/000001_jobs.up.sql (golang-migrate): 2 tables, 1 keys",
		"migrate/000002_drop.up.sql (golang-migrate): nothing",
		"sql/schema.sql (schema.sql): 1 tables, 1 keys",
		"tern/001_t.sql (tern): 1 tables, 1 keys",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, table := range []string{"orgs", "members", "jobs", "invoices", "ledgers", "audits", "tags", "settings"} {
		if s.lookup(table) == nil {
			t.Errorf("table %s not read", table)
		}
	}
	for _, table := range []string{"scratch", "fixture", "nested", "demo", "random", "mysqlonly", "sqliteonly"} {
		if s.lookup(table) != nil {
			t.Errorf("table %s read, want it left out", table)
		}
	}
	// The later migration's composite key makes a full-key lookup one row.
	if !s.IsSingleRow("members", []string{"org_id", "user_id"}) || s.IsSingleRow("members", []string{"org_id"}) {
		t.Errorf("members' composite key not applied")
	}
	if _, by := s.ForeignKeys("orgs"); len(by) != 2 {
		t.Errorf("orgs is referenced by %d foreign keys, want 2", len(by))
	}
}

// TestCompositeKeyOneRow checks that, with a discovered schema, an UPDATE
// by the full composite primary key locks one row, and one by part of it
// several.
func TestCompositeKeyOneRow(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"migrations/001_init.up.sql": "CREATE TABLE memberships (org_id bigint, user_id bigint, role text, PRIMARY KEY (org_id, user_id));\n",
	})
	s, _, err := DiscoverSchema(root)
	if err != nil {
		t.Fatal(err)
	}
	for sql, multi := range map[string]bool{
		"UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2": false,
		"UPDATE memberships SET role = $2 WHERE org_id = $1":                  true,
	} {
		for _, e := range s.Analyze(sql).Effects {
			if e.Lock.Kind == Row && e.Rows.Multi != multi {
				t.Errorf("%s: Multi = %t, want %t (%s)", sql, e.Rows.Multi, multi, e.Rows.Why)
			}
		}
	}
}

func TestMigrationOrder(t *testing.T) {
	files := []string{"m/10_c.sql", "m/2_b.sql", "m/0001_a.sql", "a/9.sql", "m/b.sql"}
	want := "a/9.sql m/b.sql m/0001_a.sql m/2_b.sql m/10_c.sql"
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, migrationOrder)
	if got := strings.Join(sorted, " "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
}

// TestSchemaFlagParsesOnFirstUse checks that a discovered schema's files
// are known as soon as the flag is set, that its migrations are parsed
// only when the schema or its sources are first asked for, and that the
// flag then gives what DiscoverSchema gives.
func TestSchemaFlagParsesOnFirstUse(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":                      "module m\n",
		"db/migrations/1_orgs.sql":    "-- migrate:up\nCREATE TABLE orgs (id bigint PRIMARY KEY);\n-- migrate:down\nDROP TABLE orgs;\n",
		"db/migrations/2_members.sql": "-- migrate:up\nCREATE TABLE members (org_id bigint REFERENCES orgs, user_id bigint);\n",
	})
	var f SchemaFlag
	if err := f.Set("auto=" + root); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "db/migrations/1_orgs.sql"), filepath.Join(root, "db/migrations/2_members.sql")}
	if !slices.Equal(f.Files(), want) {
		t.Errorf("files %v, want %v", f.Files(), want)
	}
	if f.load == nil || f.load.schema != nil || len(f.load.migs) != 2 {
		t.Fatalf("the migrations were parsed when the flag was set, or not read: %+v", f.load)
	}
	s := f.Schema()
	if s == nil || f.load.migs != nil {
		t.Fatalf("schema %v after first use; migrations left %d", s, len(f.load.migs))
	}
	if f.Schema() != s {
		t.Errorf("a second use parsed again")
	}
	direct, sources, err := DiscoverSchema(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Sources(); !slices.Equal(got, sources) {
		t.Errorf("sources %v, want %v", got, sources)
	}
	for _, sql := range []string{"DELETE FROM orgs WHERE id = 1", "UPDATE members SET org_id = 2 WHERE user_id = 1"} {
		if got, want := fmt.Sprint(s.Analyze(sql).Effects), fmt.Sprint(direct.Analyze(sql).Effects); got != want {
			t.Errorf("%s: effects %s, want %s", sql, got, want)
		}
	}
	if len(s.Analyze("DELETE FROM orgs WHERE id = 1").Effects) < 2 {
		t.Errorf("the lazily parsed schema does not know the foreign key")
	}
}
