package lockmodel

import (
	"slices"
	"testing"
)

func TestFingerprint(t *testing.T) {
	same := [][]string{
		{"UPDATE accounts SET balance = balance - $2 WHERE id = $1", "update accounts set balance = balance - 10 where id = 1", "UPDATE accounts SET balance = balance - '10' WHERE id = 7"},
		{"SELECT id FROM t WHERE id = ANY($1) FOR UPDATE", "SELECT id FROM t WHERE id IN (1, 2, 3) FOR UPDATE"},
		{"SELECT * FROM jobs WHERE id = ? FOR UPDATE", "SELECT * FROM jobs WHERE id = $1 FOR UPDATE", "SELECT * FROM jobs WHERE id = 5 FOR UPDATE"},
	}
	for _, group := range same {
		want, err := Fingerprint(group[0])
		if err != nil {
			t.Fatalf("%q: %v", group[0], err)
		}
		for _, s := range group[1:] {
			got, err := Fingerprint(s)
			if err != nil || got != want {
				t.Errorf("Fingerprint(%q) = %q, %v; want %q (as %q)", s, got, err, want, group[0])
			}
		}
	}
	a, _ := Fingerprint("UPDATE accounts SET balance = 1 WHERE id = 1")
	b, _ := Fingerprint("UPDATE invoices SET balance = 1 WHERE id = 1")
	if a == b {
		t.Errorf("two tables, one fingerprint %q", a)
	}
	for _, bad := range []string{"UPDATE WHERE", "SELECT 1\x00"} {
		if _, err := Fingerprint(bad); err == nil {
			t.Errorf("Fingerprint(%q): no error", bad)
		}
	}
}

func TestShapeOf(t *testing.T) {
	tests := []struct {
		sql    string
		kinds  []string
		tables []string
	}{
		{"UPDATE public.accounts SET x = 1 WHERE id = 2", []string{"UPDATE"}, []string{"accounts"}},
		{`SELECT * FROM "jobs" WHERE "jobs"."id" = $1 ORDER BY "jobs"."id" LIMIT 1 FOR UPDATE`, []string{"SELECT"}, []string{"jobs"}},
		{"LOCK TABLE a, b IN EXCLUSIVE MODE", []string{"LOCK"}, []string{"a", "b"}},
		{"UPDATE a SET x = 1; DELETE FROM b", []string{"UPDATE", "DELETE"}, []string{"a", "b"}},
		{"TRUNCATE c", []string{"TruncateStmt"}, []string{"c"}},
		{"SELECT pg_advisory_xact_lock(42)", []string{"SELECT"}, nil},
	}
	for _, tt := range tests {
		s, err := ShapeOf(tt.sql)
		if err != nil {
			t.Fatalf("%q: %v", tt.sql, err)
		}
		if !slices.Equal(s.Kinds, tt.kinds) || !slices.Equal(s.Tables, tt.tables) {
			t.Errorf("ShapeOf(%q) = %v %v, want %v %v", tt.sql, s.Kinds, s.Tables, tt.kinds, tt.tables)
		}
		if len(s.Locks) == 0 {
			t.Errorf("ShapeOf(%q): no locks", tt.sql)
		}
	}
	if _, err := ShapeOf("SELEC 1"); err == nil {
		t.Error("ShapeOf of bad SQL: no error")
	}
}
