package lockgraph_test

import (
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// TestTestCodePrefix checks the packages whose name starts with "test" (a
// test database seeder, a test environment): they serve tests as much as
// those that end with it, while words that start with "test" do not.
func TestTestCodePrefix(t *testing.T) {
	for _, tt := range []struct {
		pkg  string
		want bool
	}{
		{"example.com/m/api/testdb", true},
		{"example.com/m/testenv", true},
		{"example.com/m/internal/testserver", true},
		{"example.com/m/internal/testcontainers", true},
		{"example.com/m/internal/test_db", true},
		{"example.com/m/testing", true},
		{"example.com/m/testimonials", false},
		{"example.com/m/api/testament", false},
		{"example.com/m/tester", false},
		{"example.com/m/internal/store", false},
	} {
		if got := lockgraph.TestCode("/m/x.go", tt.pkg); got != tt.want {
			t.Errorf("TestCode(%q) = %t, want %t", tt.pkg, got, tt.want)
		}
	}
}
