package lockmodel

import (
	"maps"
	"slices"
	"testing"
)

func TestParamColumns(t *testing.T) {
	tests := []struct {
		sql  string
		want map[int]string
	}{
		{"SELECT * FROM accounts WHERE id = $1 FOR UPDATE", map[int]string{1: "id"}},
		{"UPDATE accounts SET reconciled_at = $1 WHERE id = $2", map[int]string{1: "reconciled_at_new", 2: "id"}},
		{"UPDATE t SET n = n + $2 WHERE t.id = $1::bigint", map[int]string{1: "id", 2: "n"}},
		{"DELETE FROM t WHERE id = ANY($1)", map[int]string{1: "id_list"}},
		{"SELECT 1 FROM t WHERE $1 = tenant_id AND k IN ($2, $3)", map[int]string{1: "tenant_id", 2: "k", 3: "k"}},
		{"INSERT INTO invoices (tenant_id, total) VALUES ($1, $2)", map[int]string{1: "tenant_id", 2: "total"}},
		{"WITH l AS (SELECT id FROM t WHERE owner = $1 FOR UPDATE) UPDATE t SET x = $2 WHERE id IN (SELECT id FROM l)", map[int]string{1: "owner", 2: "x_new"}},
		{"SELECT pg_advisory_xact_lock($1)", map[int]string{}},
		{"not sql", nil},
	}
	for _, tt := range tests {
		got := ParamColumns(tt.sql)
		if (got == nil) != (tt.want == nil) || !maps.Equal(got, tt.want) {
			t.Errorf("ParamColumns(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
}

func TestResultColumns(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT id, s.parent_id, status AS st FROM shipments s WHERE id = $1 FOR UPDATE", []string{"id", "parent_id", "st"}},
		{"SELECT count(*), * FROM t", []string{"", ""}},
		{"INSERT INTO t (name) VALUES ($1) RETURNING id", []string{"id"}},
		{"UPDATE t SET n = n + 1 WHERE id = $1 RETURNING n, id", []string{"n", "id"}},
		{"DELETE FROM t WHERE id = $1", []string{}},
		{"SELECT 1; SELECT 2", nil},
		{"not sql", nil},
	}
	for _, tt := range tests {
		got := ResultColumns(tt.sql)
		if (got == nil) != (tt.want == nil) || !slices.Equal(got, tt.want) {
			t.Errorf("ResultColumns(%q) = %q, want %q", tt.sql, got, tt.want)
		}
	}
}
