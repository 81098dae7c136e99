package testenv

import (
	"strings"
	"testing"
)

// TestSummary skips two subtests for one missing thing and one for
// another: the summary is one line that counts them by what they need and
// says how to run everything.
func TestSummary(t *testing.T) {
	t.Setenv(EnvAll, "")
	for _, need := range []string{"a server", "a server", "Graphviz"} {
		t.Run(need, func(t *testing.T) { Skip(t, need, "install it") })
	}
	var b strings.Builder
	Summary(&b)
	got := b.String()
	if got != "pglockorder tests: 3 skipped (1 need Graphviz, 2 need a server); run everything with: bash .ci/run (see the README's Development section)\n" {
		t.Errorf("summary %q", got)
	}
	mu.Lock()
	clear(skipped)
	mu.Unlock()
}
