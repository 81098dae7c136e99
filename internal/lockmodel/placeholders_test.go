package lockmodel

import (
	"slices"
	"strings"
	"testing"
)

func TestRewritePlaceholders(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"SELECT * FROM jobs WHERE id = ? FOR UPDATE", "SELECT * FROM jobs WHERE id = $1 FOR UPDATE", true},
		{"UPDATE a SET x = ? WHERE id = ? AND y = ?", "UPDATE a SET x = $1 WHERE id = $2 AND y = $3", true},
		{"UPDATE a SET n = :n WHERE id = :id OR parent = :id", "UPDATE a SET n = $1 WHERE id = $2 OR parent = $2", true},
		{"SELECT '?', \"a?b\", ':x' FROM t WHERE id = ?", "SELECT '?', \"a?b\", ':x' FROM t WHERE id = $1", true},
		{"SELECT x::int FROM t WHERE y = :y", "SELECT x::int FROM t WHERE y = $1", true},
		{"SELECT a[1:n] FROM t WHERE id = ?", "SELECT a[1:n] FROM t WHERE id = $1", true},
		{"SELECT d ?| array['a'] FROM t -- why?\nWHERE id = ?", "SELECT d ?| array['a'] FROM t -- why?\nWHERE id = $1", true},
		{"SELECT $$ a ? b $$, 1 /* ? */ WHERE x = ?", "SELECT $$ a ? b $$, 1 /* ? */ WHERE x = $1", true},
		{"SELECT * FROM t WHERE id IN ? AND x = ?", "SELECT * FROM t WHERE id = ANY($1) AND x = $2", true},
		{"SELECT * FROM t WHERE id in ( ? ) AND join_in = ?", "SELECT * FROM t WHERE id = ANY($1) AND join_in = $2", true},
		{"SELECT * FROM t WHERE id IN (?, ?)", "SELECT * FROM t WHERE id IN ($1, $2)", true},
		{"SELECT * FROM t WHERE id = $1", "", false},
		{"SELECT 'it''s ?'", "", false},
	}
	for _, tt := range tests {
		got, changed := rewritePlaceholders(tt.in)
		if changed != tt.changed || got != tt.want {
			t.Errorf("rewritePlaceholders(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
}

// TestAnalyzeQuestionMarks checks that a query written with "?" or ":name"
// markers is analysed like its $n form, and that a valid query using the
// jsonb "?" operator is not rewritten.
func TestAnalyzeQuestionMarks(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT * FROM jobs WHERE id = ? FOR UPDATE", []string{"table jobs ROW SHARE", "row jobs FOR UPDATE"}},
		{"UPDATE accounts SET balance = :b WHERE id = :id", []string{"table accounts ROW EXCLUSIVE", "row accounts FOR NO KEY UPDATE"}},
		{"SELECT pg_advisory_xact_lock(?)", []string{"advisory xact exclusive ($1)"}},
		{"SELECT * FROM docs WHERE data ? 'k' FOR SHARE", []string{"table docs ROW SHARE", "row docs FOR SHARE"}},
	}
	for _, tt := range tests {
		a := Analyze(tt.sql)
		if a.Err != nil {
			t.Errorf("Analyze(%q): %v", tt.sql, a.Err)
			continue
		}
		if got := renderAll(a.Effects); !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q) = %q, want %q", tt.sql, got, tt.want)
		}
	}
}

func FuzzRewritePlaceholders(f *testing.F) {
	for _, s := range []string{"SELECT ? FROM t", "x = :a AND y = :a", "$tag$ ? $tag$ ?", "'", "\"", "/*", "$", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, changed := rewritePlaceholders(s)
		// Only a text with a bind marker is rewritten, and the rewrite
		// adds parameters: "$" appears at least as often as before.
		if changed && !strings.ContainsAny(s, "?:") {
			t.Errorf("rewrite of %q without markers gave %q", s, out)
		}
		if changed && strings.Count(out, "$") <= strings.Count(s, "$") {
			t.Errorf("rewrite of %q added no parameter: %q", s, out)
		}
	})
}

func TestDollar(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT * FROM jobs WHERE id = ? FOR UPDATE": "SELECT * FROM jobs WHERE id = $1 FOR UPDATE",
		"SELECT * FROM jobs WHERE id = $1":           "SELECT * FROM jobs WHERE id = $1",
		"SELECT x::int FROM t":                       "SELECT x::int FROM t",
		"SELECT * FROM docs WHERE data ? 'k'":        "SELECT * FROM docs WHERE data ? 'k'",
		"not SQL at all ?":                           "not SQL at all ?",
	} {
		if got := Dollar(in); got != want {
			t.Errorf("Dollar(%q) = %q, want %q", in, got, want)
		}
	}
}
