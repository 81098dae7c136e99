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
