package lockmodel

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildWithoutCgo builds the package as a user without a C compiler
// (or with CGO_ENABLED=0) would: the first error must say what is needed,
// not that pg_query.Parse is undefined.
func TestBuildWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build; skipped with -short")
	}
	cmd := exec.Command("go", "build", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("the package built without cgo")
	}
	var first string
	for l := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(l, ".go:") {
			first = l
			break
		}
	}
	if !strings.Contains(first, "pglockorder_needs_cgo_and_a_C_compiler__set_CGO_ENABLED_1") {
		t.Errorf("first error without cgo is %q, want the one that names cgo and a C compiler\n%s", first, out)
	}
}
