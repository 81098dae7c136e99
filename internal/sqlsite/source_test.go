package sqlsite

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

func TestSourceReturn(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.go")
	src := `package m

type A struct{}

func (A) TableName() string { return "a_rows" }

type B struct{}

func (B) TableName() string {
	return "b_" + "rows"
}

type C struct{}

func (C) TableName() string { return ` + "`c_rows`" + ` }
`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line int
		want string
		ok   bool
	}{
		{5, "a_rows", true},
		{9, "", false}, // not a single literal
		{15, "c_rows", true},
		{3, "", false}, // no function there
	}
	for _, tt := range tests {
		got, ok := sourceReturn(token.Position{Filename: file, Line: tt.line})
		if got != tt.want || ok != tt.ok {
			t.Errorf("sourceReturn(line %d) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := sourceReturn(token.Position{Filename: filepath.Join(t.TempDir(), "missing.go"), Line: 1}); ok {
		t.Error("sourceReturn of a missing file reported a name")
	}
}
