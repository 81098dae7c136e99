package sqlsite

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadEmbed(t *testing.T) {
	dir := t.TempDir()
	goFile := filepath.Join(dir, "q.go")
	src := "package q\n\n// lock is the query.\n//go:embed lock.sql\nvar lock string\n\n//go:embed *.sql\nvar many string\n\nvar plain string\n"
	if err := os.WriteFile(goFile, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"lock.sql": "SELECT 1 FOR UPDATE", "other.sql": "SELECT 2"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		line int
		want string
		ok   bool
	}{
		{5, "SELECT 1 FOR UPDATE", true},
		{8, "", false},  // a pattern of two files: not one text
		{10, "", false}, // no directive
	}
	for _, tt := range tests {
		got, ok := readEmbed(goFile, tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("readEmbed(line %d) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// TestMapLoaderKey checks the key a loader files an embedded file under,
// for the three ways a loader derives it from the file's base name.
func TestMapLoaderKey(t *testing.T) {
	tests := []struct {
		ext, file, want string
	}{
		{".sql", "sql/lock_job.sql", "lock_job"},
		{".sql", "sql/lock_job.pgsql", "lock_job.pgsql"}, // another extension stays
		{"*", "q/cancel.pgsql", "cancel"},
		{"*", "q/a.b.sql", "a.b"},
		{"", "sql/lock_job.sql", "lock_job.sql"},
		{".sql", "deep/er/x.sql", "x"},
	}
	for _, tt := range tests {
		if got := (mapLoader{ext: tt.ext}).key(tt.file); got != tt.want {
			t.Errorf("mapLoader{ext: %q}.key(%q) = %q, want %q", tt.ext, tt.file, got, tt.want)
		}
	}
}
