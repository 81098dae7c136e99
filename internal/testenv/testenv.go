// Package testenv lets tests that need something outside Go (a PostgreSQL
// server, Graphviz, golangci-lint built with the plugin, the SARIF schema)
// skip without it, and makes the skips visible: each test package's
// TestMain ends with one line naming what was skipped and how to run it,
// and with PGLOCKORDER_TEST_ALL=1 (set by .ci/run) a skip is a failure, so
// that the full run cannot pass by skipping.
package testenv

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// EnvAll names the variable that turns skips into failures.
const EnvAll = "PGLOCKORDER_TEST_ALL"

var (
	mu      sync.Mutex
	skipped = map[string]int{} // what was missing -> tests skipped
)

// Skip skips the test because need is missing ("a PostgreSQL server"),
// saying how to provide it; under PGLOCKORDER_TEST_ALL=1 it fails instead.
func Skip(t testing.TB, need, how string) {
	t.Helper()
	if os.Getenv(EnvAll) == "1" {
		t.Fatalf("%s is missing, and %s=1 runs every test: %s", need, EnvAll, how)
	}
	mu.Lock()
	skipped[need]++
	mu.Unlock()
	t.Skipf("needs %s: %s", need, how)
}

// Main runs the package's tests, then prints the summary of the skips.
func Main(m *testing.M) int {
	code := m.Run()
	Summary(os.Stderr)
	return code
}

// Summary prints one line naming what the package's tests skipped, or
// nothing.
func Summary(w io.Writer) {
	mu.Lock()
	defer mu.Unlock()
	if len(skipped) == 0 {
		return
	}
	var parts []string
	n := 0
	for _, need := range slices.Sorted(maps.Keys(skipped)) {
		parts = append(parts, fmt.Sprintf("%d need %s", skipped[need], need))
		n += skipped[need]
	}
	fmt.Fprintf(w, "pglockorder tests: %d skipped (%s); run everything with: bash .ci/run (see the README's Development section)\n",
		n, strings.Join(parts, ", "))
}
