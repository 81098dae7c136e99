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

// TestResultCache runs the command twice on unchanged code, checks that the
// second run takes its results from the cache and prints the same, and
// that an edit to a source file, a change of flags, or -cache=false makes
// it analyse again.
func TestResultCache(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	cacheDir := t.TempDir()
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-v"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), cacheEnv+"="+cacheDir)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit):
			code = exit.ExitCode()
		default:
			t.Fatalf("%v: %v", args, err)
		}
		return o.String(), e.String(), code
	}
	first, errFirst, code := run("./...")
	if code != exitFindings || !strings.Contains(errFirst, "analysed in") {
		t.Fatalf("first run: exit %d\n%s\n%s", code, first, errFirst)
	}
	second, errSecond, code := run("./...")
	if code != exitFindings || !strings.Contains(errSecond, "results from the cache in") {
		t.Fatalf("second run did not use the cache: exit %d\n%s", code, errSecond)
	}
	if second != first {
		t.Errorf("cached output differs:\n--- first\n%s\n--- second\n%s", first, second)
	}
	// Other output formats are computed from the cached results too.
	sarif1, _, _ := run("-format=sarif", "-cache=false", "./...")
	sarif2, errSarif, _ := run("-format=sarif", "./...")
	if !strings.Contains(errSarif, "results from the cache") || sarif1 != sarif2 {
		t.Errorf("SARIF from the cache differs from a fresh run (or the cache was not used):\n%s", errSarif)
	}
	// So is the graph, whose cycle edges the cached cycles must name.
	dot1, _, _ := run("-graph=dot", "-cache=false", "./...")
	dot2, _, _ := run("-graph=dot", "./...")
	if dot1 != dot2 || !strings.Contains(dot2, "color=red") {
		t.Errorf("DOT from the cache differs from a fresh run:\n--- fresh\n%s\n--- cached\n%s", dot1, dot2)
	}
	// -debug changes no result: it finds the entries of a run without it.
	debugOut, errDebug, _ := run("-debug", "./...")
	if !strings.Contains(errDebug, "results from the cache in") || debugOut != first {
		t.Errorf("-debug did not use the cache of a run without it:\n%s", errDebug)
	}
	// A flag of the analysis is part of the key.
	if _, errFlag, _ := run("-maxcycle=3", "./..."); !strings.Contains(errFlag, "analysed in") {
		t.Errorf("a different -maxcycle used the cache:\n%s", errFlag)
	}
	// -cache=false analyses.
	if _, errOff, _ := run("-cache=false", "./..."); !strings.Contains(errOff, "analysed in") {
		t.Errorf("-cache=false used the cache:\n%s", errOff)
	}
	// Fixing the inversion changes the key and the result.
	editFile(t, filepath.Join(dir, "api", "api.go"), func(s string) string {
		return strings.Replace(s, `"UPDATE usage_records SET billed = false WHERE account_id = $1"`,
			`"SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE"`, 1)
	})
	out, errEdit, code := run("./...")
	if !strings.Contains(errEdit, "analysed in") || code != exitClean || out != "" {
		t.Errorf("after an edit: exit %d, want a fresh clean run\n%s\n%s", code, out, errEdit)
	}
	entries, err := os.ReadDir(cacheDir)
	if err != nil || len(entries) == 0 {
		t.Errorf("no cache entries in %s (%v)", cacheDir, err)
	}
}
