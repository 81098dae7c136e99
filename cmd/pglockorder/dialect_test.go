package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDialectsWholeProgram runs the command, as a user would, on a store
// with one implementation per database: only the PostgreSQL
// implementation's inversion (and that of a package importing both
// drivers) is reported; the MySQL one, a package whose only binary
// registers the MySQL driver, and a package the configuration declares
// MySQL stay silent, and -v counts what was skipped and says why.
func TestDialectsWholeProgram(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "dialect"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	stdout, stderr, code := runTool(t, dir, bin, "-cache=false", "-v", "./...")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFindings, stdout, stderr)
	}
	var got []string
	for line := range strings.SplitSeq(stdout, "\n") {
		if strings.Contains(line, "lock-order inversion") {
			got = append(got, strings.SplitN(line, ":", 2)[0])
		}
	}
	if want := []string{"store/mixed/mixed.go", "store/postgres/postgres.go"}; !slices.Equal(got, want) {
		t.Errorf("findings in %q, want %q\n%s", got, want, stdout)
	}
	for _, want := range []string{
		"SQL skipped (dialect mysql): 12",
		"SQL skipped (not PostgreSQL syntax: backtick identifiers): 1",
		"SQL skipped (not PostgreSQL syntax: ON DUPLICATE KEY UPDATE): 1",
		"dialect of dialect/store/mysql: mysql: imports github.com/go-sql-driver/mysql",
		"dialect of dialect/store/legacy: mysql: the binaries that import it link only mysql drivers",
		"dialect of dialect/store/tidb: mysql: .pglockorder.yaml: dialects: ./store/tidb/...",
		"dialect of dialect/store/mixed: postgresql: ambiguous",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-v does not say %q:\n%s", want, stderr)
		}
	}
}
