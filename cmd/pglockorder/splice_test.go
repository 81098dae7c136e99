package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSpliceDrivers runs the corpus's splice scenario, SQL spliced by
// helpers from their callers' constants, through the command (summaries
// passed in memory) and as go vet's tool (summaries as facts): both see its
// twelve inversions, one per shape, and nothing in its fixed twins.
func TestSpliceDrivers(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	count := func(out string) (all, fixed int) {
		for line := range strings.Lines(out) {
			if strings.Contains(line, ": lock-order inversion: ") {
				all++
				if strings.HasPrefix(line, "splice/fixed/") {
					fixed++
				}
			}
		}
		return all, fixed
	}
	out, stderr, code := runTool(t, dir, bin, "-cache=false", "./splice/...")
	if all, fixed := count(out); code != exitFindings || all != 12 || fixed != 0 {
		t.Errorf("command: exit %d, %d inversions (%d in the fixed twins), want 12 (0)\n%s\n%s", code, all, fixed, out, stderr)
	}
	_, stderr, code = runTool(t, dir, "go", "vet", "-vettool="+bin, "./splice/...")
	if all, fixed := count(stderr); code == 0 || all != 12 || fixed != 0 {
		t.Errorf("go vet: exit %d, %d inversions (%d in the fixed twins), want 12 (0)\n%s", code, all, fixed, stderr)
	}
}
