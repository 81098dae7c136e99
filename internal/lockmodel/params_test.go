package lockmodel

import (
	"maps"
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
