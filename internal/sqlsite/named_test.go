package sqlsite

import (
	"slices"
	"strings"
	"testing"
)

// TestRewriteNamed checks the rewriting of pgx's @name placeholders.
func TestRewriteNamed(t *testing.T) {
	tests := []struct {
		in, want string
		names    []string
	}{
		{"SELECT 1 FROM t WHERE id = @id FOR UPDATE", "SELECT 1 FROM t WHERE id = $1 FOR UPDATE", []string{"id"}},
		{"UPDATE t SET a = @a, b = @b WHERE id = @id AND a <> @a", "UPDATE t SET a = $1, b = $2 WHERE id = $3 AND a <> $1", []string{"a", "b", "id"}},
		{"SELECT '@notarg', \"@col\" FROM t WHERE x = @x_1", "SELECT '@notarg', \"@col\" FROM t WHERE x = $1", []string{"x_1"}},
		{"SELECT 1 -- @comment\nWHERE y = @y", "SELECT 1 -- @comment\nWHERE y = $1", []string{"y"}},
		{"SELECT /* @c */ @ -5, @9", "SELECT /* @c */ @ -5, @9", nil},
		{"SELECT 'it''s @x' WHERE z = @z", "SELECT 'it''s @x' WHERE z = $1", []string{"z"}},
		{"SELECT 'unterminated @x", "SELECT 'unterminated @x", nil},
	}
	for _, tt := range tests {
		got, names := rewriteNamed(tt.in, '@')
		if got != tt.want || !slices.Equal(names, tt.names) {
			t.Errorf("rewriteNamed(%q) = %q, %q; want %q, %q", tt.in, got, names, tt.want, tt.names)
		}
	}
}

// TestRewriteColonNamed checks sqlx's :name placeholders, next to casts.
func TestRewriteColonNamed(t *testing.T) {
	got, names := rewriteNamed("UPDATE t SET a = :a::int, b = ':b' WHERE id = :id AND x::text = :a", ':')
	want := "UPDATE t SET a = $1::int, b = ':b' WHERE id = $2 AND x::text = $1"
	if got != want || !slices.Equal(names, []string{"a", "id"}) {
		t.Errorf("rewriteNamed = %q, %q; want %q, [a id]", got, names, want)
	}
}

// FuzzRewriteNamed checks that the rewriting never panics, changes nothing
// without an @, and leaves no @name of its list behind.
func FuzzRewriteNamed(f *testing.F) {
	for _, s := range []string{"SELECT @a, '@b' -- @c\n/* @d */ @e", "@", "'", "x@y", "@@a", "/*", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		got, names := rewriteNamed(sql, '@')
		if !strings.Contains(sql, "@") && got != sql {
			t.Errorf("%q rewritten to %q without a placeholder", sql, got)
		}
		if len(names) == 0 && got != sql {
			t.Errorf("%q rewritten to %q with no names", sql, got)
		}
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Errorf("%q: name %q listed twice", sql, n)
			}
			seen[n] = true
		}
	})
}
