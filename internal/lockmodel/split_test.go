package lockmodel

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"UPDATE a SET v = ';' WHERE id = $1; UPDATE b SET v = 1", []string{"UPDATE a SET v = ';' WHERE id = $1", "UPDATE b SET v = 1"}},
	} {
		got, err := Split(tc.sql)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
	if _, err := Split("SELEC 1"); err == nil {
		t.Error("Split of invalid SQL: no error")
	}
}
