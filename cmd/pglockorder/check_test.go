package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestReaches checks which packages the driver type-checks and analyses:
// those that import a database API directly or through other packages, or
// mention a method that runs a query string; and that the others are still
// usable as imports through their export data.
func TestReaches(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module m\n\ngo 1.25\n",
		"plain/plain.go":  "package plain\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n",
		"plain2/p.go":     "package plain2\n\nimport \"m/plain\"\n\n// Quad quadruples.\nfunc Quad(x int) int { return plain.Double(plain.Double(x)) }\n\n// Execute is not a query method.\nfunc Execute() {}\n",
		"querier/q.go":    "package querier\n\n// Execer runs statements.\ntype Execer interface {\n\tExec (query string, args ...any) error\n}\n",
		"usesq/u.go":      "package usesq\n\nimport (\n\t\"m/plain\"\n\t\"m/querier\"\n)\n\n// Run runs one statement.\nfunc Run(e querier.Execer) error { return e.Exec(\"SELECT 1\", plain.Double(1)) }\n",
		"dbsql/d.go":      "package dbsql\n\nimport \"database/sql\"\n\n// Open opens a database.\nfunc Open() (*sql.DB, error) { return sql.Open(\"pgx\", \"\") }\n",
		"viadbsql/v.go":   "package viadbsql\n\nimport \"m/dbsql\"\n\n// DB is the database.\nvar DB, _ = dbsql.Open()\n",
		"plain/plain2.go": "package plain\n\n// QueryRowish is not a query method either.\nvar QueryRowish = 1\n",
		// A port, its adapter that runs SQL, and a service that calls
		// the port only: the service is analysed, and so is its
		// importer; a package calling another method is not.
		"port/port.go": "package port\n\n// Claimer claims jobs.\ntype Claimer interface{ Claim(id int) error }\n",
		"pg/pg.go":     "package pg\n\nimport \"database/sql\"\n\n// Store claims jobs.\ntype Store struct{ DB *sql.DB }\n\n// Claim claims a job.\nfunc (s *Store) Claim(id int) error { return nil }\n\n// String names the store.\nfunc (s *Store) String() string { return \"pg\" }\n",
		"svc/svc.go":   "package svc\n\nimport \"m/port\"\n\n// Run claims job 1.\nfunc Run(c port.Claimer) error { return c.Claim(1) }\n",
		"api/api.go":   "package api\n\nimport \"m/svc\"\n\n// Handle runs the service.\nfunc Handle() error { return svc.Run(nil) }\n",
		"strs/strs.go": "package strs\n\nimport \"fmt\"\n\n// Name names a value.\nfunc Name(v fmt.Stringer) string { return v.String() }\n",
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := load(&packages.Config{Mode: loadMode, Dir: dir}, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	if _, left := partition(pkgs); len(left) > 0 {
		t.Fatalf("packages left out: %v", left)
	}
	want := map[string]bool{
		"m/plain": false, "m/plain2": false, "m/querier": true, "m/usesq": true, "m/dbsql": true, "m/viadbsql": true,
		"m/port": false, "m/pg": true, "m/svc": true, "m/api": true, "m/strs": false,
	}
	c := newChecker(pkgs, nil)
	for _, p := range pkgs {
		w, ok := want[p.PkgPath]
		if !ok {
			t.Errorf("unexpected package %s", p.PkgPath)
			continue
		}
		if got := c.source(p); got != w {
			t.Errorf("%s: analysed = %t, want %t", p.PkgPath, got, w)
		}
		if w {
			if err := c.check(p); err != nil {
				t.Errorf("%s: %v", p.PkgPath, err)
			} else if p.TypesInfo == nil || len(p.Syntax) == 0 {
				t.Errorf("%s: checked without syntax or type information", p.PkgPath)
			}
		}
	}
	// usesq imports plain through export data and querier from source.
	for _, p := range pkgs {
		if p.PkgPath != "m/usesq" {
			continue
		}
		imps := p.Types.Imports()
		if len(imps) != 2 {
			t.Fatalf("usesq imports %v", imps)
		}
		for _, imp := range imps {
			if imp.Scope().Len() == 0 {
				t.Errorf("imported %s has an empty scope", imp.Path())
			}
		}
	}
}
