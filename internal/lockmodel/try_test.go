package lockmodel

import "testing"

// TestTryUse checks where the analysis says a try-lock's result goes: the
// caller can only learn whether the lock was granted from a bare result
// column or from a conjunct of the WHERE clause.
func TestTryUse(t *testing.T) {
	tests := []struct {
		sql    string
		use    TryUse
		column int
	}{
		{"SELECT pg_try_advisory_xact_lock(1)", TryColumn, 0},
		{"SELECT pg_try_advisory_lock(1) AS ok", TryColumn, 0},
		{"SELECT now(), pg_try_advisory_lock_shared($1)::bool", TryColumn, 1},
		{"SELECT pg_catalog.pg_try_advisory_xact_lock_shared(1, 2)", TryColumn, 0},
		{"SELECT id FROM jobs WHERE pg_try_advisory_xact_lock(id)", TryFilter, 0},
		{"SELECT id FROM jobs WHERE id = $1 AND state = 'q' AND pg_try_advisory_xact_lock(7)", TryFilter, 0},
		// The result is hidden in an expression, an OR, a sub-query, a
		// set operation or a DML statement.
		{"SELECT NOT pg_try_advisory_lock(1)", TryUnseen, 0},
		{"SELECT id FROM jobs WHERE id = $1 OR pg_try_advisory_xact_lock(7)", TryUnseen, 0},
		{"SELECT (SELECT pg_try_advisory_lock(1))", TryUnseen, 0},
		{"SELECT pg_try_advisory_lock(1) UNION ALL SELECT true", TryUnseen, 0},
		{"UPDATE jobs SET state = 'r' WHERE pg_try_advisory_xact_lock(id)", TryUnseen, 0},
	}
	for _, tt := range tests {
		an := Analyze(tt.sql)
		if an.Err != nil {
			t.Fatalf("%s: %v", tt.sql, an.Err)
		}
		found := false
		for _, e := range an.Effects {
			if e.Kind != Acquire || e.Lock.Wait != Try {
				continue
			}
			found = true
			if e.Try != tt.use || e.Column != tt.column {
				t.Errorf("%s: Try=%d Column=%d, want %d %d", tt.sql, e.Try, e.Column, tt.use, tt.column)
			}
		}
		if !found {
			t.Errorf("%s: no try-lock found", tt.sql)
		}
	}
}
