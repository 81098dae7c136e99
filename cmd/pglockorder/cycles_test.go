package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCycleCache checks that a run whose edges are those of an earlier run
// takes that run's cycles instead of searching again, and prints what a run
// without cache prints; and that a run whose edges changed searches again.
func TestCycleCache(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	cacheDir := t.TempDir()
	run := func(args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-v"}, append(args, "./...")...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), cacheEnv+"="+cacheDir)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		var exit *exec.ExitError
		if err := cmd.Run(); err != nil && !errors.As(err, &exit) {
			t.Fatalf("%v: %v", args, err)
		}
		return o.String(), e.String()
	}
	const reused = "cycles: those an earlier run found"
	// check runs with the cache and without, compares their outputs, and
	// returns whether the cycles were the cache's.
	check := func(what string) (string, bool) {
		t.Helper()
		out, errOut := run()
		for _, format := range []string{"-format=sarif", "-graph=dot"} {
			cached, _ := run(format)
			if fresh, _ := run(format, "-cache=false"); cached != fresh {
				t.Errorf("%s: %s output differs from a run without cache", what, format)
			}
		}
		if fresh, _ := run("-cache=false"); out != fresh {
			t.Errorf("%s: output differs from a run without cache:\n--- cached\n%s\n--- fresh\n%s", what, out, fresh)
		}
		return out, strings.Contains(errOut, reused)
	}
	first, errFirst := run()
	if !strings.Contains(first, "lock-order inversion") || strings.Contains(errFirst, reused) {
		t.Fatalf("first run: no finding, or cycles from an empty cache:\n%s\n%s", first, errFirst)
	}

	// A comment changes the files, and so the whole-run key, not the
	// edges.
	api := filepath.Join(dir, "api", "api.go")
	editFile(t, api, func(s string) string { return s + "\n// An edit that changes no edge.\n" })
	if out, ok := check("comment"); !ok || !strings.Contains(out, "lock-order inversion") {
		t.Errorf("after a comment: cycles from the cache %t, want true; output:\n%s", ok, out)
	}

	// Taking the locks in the order of the other path changes the edges:
	// the search runs again, and finds no cycle.
	editFile(t, api, func(s string) string {
		return strings.Replace(s, `"UPDATE usage_records SET billed = false WHERE account_id = $1"`,
			`"SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE"`, 1)
	})
	if out, ok := check("SQL"); ok || strings.Contains(out, "lock-order inversion") {
		t.Errorf("after an SQL edit: cycles from the cache %t, want false; output:\n%s", ok, out)
	}
}
