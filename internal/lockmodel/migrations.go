package lockmodel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"gopkg.in/yaml.v3"
)

// A Go service keeps its database's schema in its module, in one of a few
// conventional layouts. DiscoverSchema finds them without a flag:
//
//   - the schema: paths of sqlc.yaml, sqlc.yml or sqlc.json (files or
//     directories);
//   - golang-migrate's *.up.sql (the *.down.sql are never applied);
//   - goose's -- +goose Up sections, sql-migrate's -- +migrate Up and
//     dbmate's -- migrate:up (the down sections are left out);
//   - tern's migrations, the part above ---- create above / drop below ----;
//   - atlas directories (an atlas.sum beside the files), and plain
//     numbered .sql files in a directory named migrations or migration;
//   - schema.sql at the module root or under a directory named db, sql,
//     schema, schemas, database, migrations or postgres(ql).
//
// Files are applied in migration order: directory by directory, and in a
// directory by the number their name starts with (1, 2, 10), then by name.
// Later statements win where they redefine (DROP TABLE, CREATE OR REPLACE).
// testdata, vendor, node_modules, hidden directories, nested modules and
// directories named after another database (mysql, sqlite, ...) are not
// searched.

// SchemaSource is one file a schema was read from, and what it added.
type SchemaSource struct {
	File string
	// Layout names the convention the file was found by ("goose",
	// "golang-migrate", "sqlc", ...), "" for a -schema path.
	Layout string
	// Tables, Keys and ForeignKeys count what the file added; Functions
	// and Triggers the routines and triggers it defined.
	Tables, Keys, ForeignKeys, Functions, Triggers int
	// Skipped counts statements that do not parse (psql meta-commands,
	// another dialect's syntax): they are left out, the rest is read.
	Skipped int
}

// String renders the source for -v.
func (s SchemaSource) String() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.Tables, "tables"}, {s.Keys, "keys"}, {s.ForeignKeys, "foreign keys"}, {s.Functions, "functions"}, {s.Triggers, "triggers"}, {s.Skipped, "statements skipped"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing"}
	}
	layout := ""
	if s.Layout != "" {
		layout = " (" + s.Layout + ")"
	}
	return s.File + layout + ": " + strings.Join(parts, ", ")
}

// migration is one file to apply: its text, already cut to its up part.
type migration struct {
	file, layout, text string
}

// DiscoverSchema reads the schema of the modules rooted at roots from their
// conventional places. It returns nil and no sources when none is found.
func DiscoverSchema(roots ...string) (*Schema, []SchemaSource, error) {
	migs, err := discoverMigrations(roots)
	if err != nil {
		return nil, nil, err
	}
	s, sources := applyMigrations(migs)
	return s, sources, nil
}

// discoverMigrations finds and reads the migrations of the modules rooted
// at roots, in the order they are applied.
func discoverMigrations(roots []string) ([]migration, error) {
	var migs []migration
	for _, root := range roots {
		m, err := findMigrations(root)
		if err != nil {
			return nil, err
		}
		migs = append(migs, m...)
	}
	return migs, nil
}

// applyMigrations parses migrations into a new schema (nil for none).
func applyMigrations(migs []migration) (*Schema, []SchemaSource) {
	if len(migs) == 0 {
		return nil, nil
	}
	s := NewSchema()
	sources := make([]SchemaSource, 0, len(migs))
	for _, m := range migs {
		sources = append(sources, s.apply(m))
	}
	return s, sources
}

// apply parses one migration into s, statement by statement, and says what
// it added.
func (s *Schema) apply(m migration) SchemaSource {
	before := s.counts()
	src := SchemaSource{File: m.file, Layout: m.layout}
	if err := s.Parse(m.text); err != nil {
		// Some statement does not parse: read the others one by one.
		stmts, err := pg_query.SplitWithScanner(m.text, true)
		if err != nil {
			src.Skipped = 1
			stmts = nil
		}
		for _, st := range stmts {
			if s.Parse(st) != nil {
				src.Skipped++
			}
		}
	}
	return s.added(src, before)
}

// added fills in src what the schema gained since it had the counts
// before.
func (s *Schema) added(src SchemaSource, before [5]int) SchemaSource {
	after := s.counts()
	src.Tables, src.Keys, src.ForeignKeys = after[0]-before[0], after[1]-before[1], after[2]-before[2]
	src.Functions, src.Triggers = after[3]-before[3], after[4]-before[4]
	return src
}

// counts returns the numbers of tables, keys, foreign keys, functions and
// triggers the schema knows.
func (s *Schema) counts() [5]int {
	var c [5]int
	for _, t := range s.tables {
		c[0]++
		c[1] += len(t.keys)
		c[2] += len(t.refs)
	}
	c[3], c[4] = s.routineCount(), s.triggerCount()
	return c
}

// skipDir reports whether a directory is never searched for migrations.
func skipDir(root, path string, d fs.DirEntry) bool {
	if path == root {
		return false
	}
	name := d.Name()
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules" {
		return true
	}
	lower := strings.ToLower(name)
	for _, other := range otherDialects {
		if strings.Contains(lower, other) {
			return true // another database's migrations (schema/mysql/v8, riversqlite)
		}
	}
	_, err := os.Stat(filepath.Join(path, "go.mod"))
	return err == nil // a nested module has its own schema
}

// otherDialects are the names of other databases that, in a directory's
// name, mark migrations that are not PostgreSQL's.
var otherDialects = []string{"mysql", "mariadb", "sqlite", "mssql", "sqlserver", "clickhouse", "oracle"}

// schemaDirs are the directory names under which a schema.sql is the
// database's schema (and not, say, a test fixture).
var schemaDirs = []string{"db", "sql", "schema", "schemas", "database", "migrations", "migration", "postgres", "postgresql"}

// findMigrations lists the migrations of the module at root, in the order
// to apply them.
func findMigrations(root string) ([]migration, error) {
	var out []migration
	seen := map[string]bool{}
	add := func(file, layout, text string) {
		if !seen[file] {
			seen[file] = true
			out = append(out, migration{file: file, layout: layout, text: text})
		}
	}
	sqlcFiles, err := sqlcSchemaFiles(root)
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDir(root, path, d) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".sql") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("finding migrations: %w", err)
	}
	files = append(files, sqlcFiles...)
	slices.SortFunc(files, migrationOrder)
	files = slices.Compact(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("finding migrations: %w", err)
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			rel = f
		}
		if layout, text := migrationText(root, f, string(data)); layout != "" {
			add(rel, layout, text)
		} else if slices.Contains(sqlcFiles, f) {
			add(rel, "sqlc", string(data))
		}
	}
	return out, nil
}

// migrationText says whether a .sql file is a migration (or a schema) by
// the conventions above, and returns its up part.
func migrationText(root, file, text string) (layout, up string) {
	base := filepath.Base(file)
	dir := filepath.Dir(file)
	switch {
	case strings.HasSuffix(base, ".down.sql"):
		return "", ""
	case strings.HasSuffix(base, ".up.sql"):
		return "golang-migrate", text
	}
	for _, m := range []struct{ layout, up, down string }{
		{"goose", "-- +goose up", "-- +goose down"},
		{"sql-migrate", "-- +migrate up", "-- +migrate down"},
		{"dbmate", "-- migrate:up", "-- migrate:down"},
	} {
		if s, ok := section(text, m.up, m.down); ok {
			return m.layout, s
		}
	}
	if above, _, ok := strings.Cut(text, "---- create above / drop below ----"); ok {
		return "tern", above
	}
	if exists(filepath.Join(dir, "tern.conf")) {
		return "tern", text
	}
	if exists(filepath.Join(dir, "atlas.sum")) {
		return "atlas", text
	}
	if isQueryFile(text) {
		return "", "" // sqlc queries, not schema
	}
	parent := filepath.Base(dir)
	if (parent == "migrations" || parent == "migration") && startsWithNumber(base) {
		return "migrations", text
	}
	if base == "schema.sql" {
		if dir == root {
			return "schema.sql", text
		}
		rel, _ := filepath.Rel(root, dir)
		for seg := range strings.SplitSeq(filepath.ToSlash(rel), "/") {
			if slices.Contains(schemaDirs, seg) {
				return "schema.sql", text
			}
		}
	}
	return "", ""
}

// section returns the lines of text between a line starting with the up
// marker and one starting with the down marker (case-insensitive), and
// whether the up marker is there.
func section(text, up, down string) (string, bool) {
	var b strings.Builder
	in, found := false, false
	for line := range strings.SplitAfterSeq(text, "\n") {
		l := strings.ToLower(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(l, up):
			in, found = true, true
			continue
		case strings.HasPrefix(l, down):
			in = false
			continue
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String(), found
}

// isQueryFile reports whether text is a file of sqlc queries ("-- name:
// GetX :one").
func isQueryFile(text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "-- name:") {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func startsWithNumber(name string) bool {
	return name != "" && name[0] >= '0' && name[0] <= '9'
}

// migrationOrder orders files by directory, then by the number their name
// starts with, then by name.
func migrationOrder(a, b string) int {
	if c := strings.Compare(filepath.Dir(a), filepath.Dir(b)); c != 0 {
		return c
	}
	na, nb := leadingNumber(filepath.Base(a)), leadingNumber(filepath.Base(b))
	if len(na) != len(nb) {
		return len(na) - len(nb)
	}
	if c := strings.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// leadingNumber returns the digits a name starts with, without leading
// zeros (compared by length, then as text: numerically, at any size).
func leadingNumber(name string) string {
	i := 0
	for i < len(name) && name[i] >= '0' && name[i] <= '9' {
		i++
	}
	return strings.TrimLeft(name[:i], "0")
}

// sqlcSchemaFiles returns the .sql files named by the schema: keys of the
// module's sqlc configuration (version 1's packages and version 2's sql
// lists; a directory stands for its .sql files).
func sqlcSchemaFiles(root string) ([]string, error) {
	var data []byte
	for _, name := range []string{"sqlc.yaml", "sqlc.yml", "sqlc.json"} {
		d, err := os.ReadFile(filepath.Join(root, name))
		if err == nil {
			data = d
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading sqlc configuration: %w", err)
		}
	}
	if data == nil {
		return nil, nil
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil //nolint:nilerr // not sqlc's file after all: nothing to read from it
	}
	var paths []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k != "schema" {
					walk(x)
					continue
				}
				switch x := x.(type) {
				case string:
					paths = append(paths, x)
				case []any:
					for _, p := range x {
						if s, ok := p.(string); ok {
							paths = append(paths, s)
						}
					}
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	var files []string
	for _, p := range paths {
		full := filepath.Join(root, p)
		info, err := os.Stat(full)
		if err != nil {
			continue // a stale path in sqlc's file is sqlc's business
		}
		if !info.IsDir() {
			files = append(files, full)
			continue
		}
		entries, err := os.ReadDir(full)
		if err != nil {
			return nil, fmt.Errorf("reading sqlc schema: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".sql") {
				files = append(files, filepath.Join(full, e.Name()))
			}
		}
	}
	return files, nil
}
