package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDisable checks -disable: an unknown category is a usage error (a
// typo must not silently disable nothing), a disabled category is not
// reported, and an ignore directive covering a finding of a disabled
// category is not reported stale, in the command and under go vet.
func TestDisable(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	if _, stderr, code := runTool(t, dir, bin, "-disable=lock-ordr", "./..."); code != exitUsage || !strings.Contains(stderr, `unknown category "lock-ordr"`) {
		t.Errorf("-disable with a typo: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
	if out, stderr, code := runTool(t, dir, bin, "-disable=lock-order", "./..."); code != exitClean || out != "" {
		t.Errorf("-disable=lock-order: exit %d, output %q\n%s", code, out, stderr)
	}
	editFile(t, filepath.Join(dir, "api", "api.go"), func(s string) string {
		return strings.Replace(s, "\tif _, err := tx.ExecContext(ctx, \"UPDATE subscriptions",
			"\t//pglockorder:ignore tier changes run in the nightly window only\n\tif _, err := tx.ExecContext(ctx, \"UPDATE subscriptions", 1)
	})
	if out, stderr, code := runTool(t, dir, bin, "-disable=lock-order", "./..."); code != exitClean || out != "" {
		t.Errorf("-disable=lock-order with a directive for that finding: exit %d, output %q\n%s", code, out, stderr)
	}
	if got := vetIssues(t, bin, dir, "-pglockorder.disable=lock-order", "./..."); len(got) != 0 {
		t.Errorf("go vet -pglockorder.disable=lock-order with the directive: %v", got)
	}
}
