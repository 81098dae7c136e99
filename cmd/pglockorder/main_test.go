package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pglockorder/pglockorder/internal/testenv"
)

var (
	buildOnce sync.Once
	toolPath  string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	// The commands the tests run keep their result cache in a directory
	// of the test run's own, never the user's.
	cacheDir, err := os.MkdirTemp("", "pglockorder-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Setenv(cacheEnv, cacheDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := testenv.Main(m) // prints what was skipped
	_ = os.RemoveAll(cacheDir)
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildTool builds the pglockorder command once per test binary run.
func buildTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the command; skipped with -short")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "pglockorder-test")
		if buildErr != nil {
			return
		}
		toolPath = filepath.Join(buildDir, "pglockorder")
		out, err := exec.Command("go", "build", "-o", toolPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Parallel()
	return toolPath
}

// download fetches a testdata module's dependencies.
func download(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in %s: %v\n%s", dir, err, out)
	}
}

// runTool runs a command and returns its output and exit code.
func runTool(t *testing.T, dir, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return o.String(), e.String(), code
}

func example(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "example"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	return dir
}

// TestWholeProgram runs the command on the bundled example: two binaries
// whose packages do not import each other, so only a whole-program run sees
// the cycle.
func TestWholeProgram(t *testing.T) {
	bin := buildTool(t)
	dir := example(t)
	out, errOut, code := runTool(t, dir, bin, "./...")
	if code != exitFindings {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errOut)
	}
	for _, want := range []string{
		"billing/invoice.go:36:23: lock-order inversion: rows of subscriptions and rows of usage_records are locked in opposite orders",
		"path 1: billing.InvoiceAccount holds rows of subscriptions (FOR UPDATE) while waiting for rows of usage_records (FOR UPDATE)",
		"takes:      billing/invoice.go:32:19: SELECT ... FOR UPDATE in a transaction",
		"path 2: api.UpdateSubscriptionTier holds rows of usage_records (FOR NO KEY UPDATE)",
		"then waits: api/tier.go:27:22: UPDATE in a transaction",
		"fix: take subscriptions before usage_records on every path",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "lock-order inversion"); n != 1 {
		t.Errorf("%d reports, want 1:\n%s", n, out)
	}
}

// TestWholeProgramFixed checks that the fixed example is clean.
func TestWholeProgramFixed(t *testing.T) {
	bin := buildTool(t)
	dir := example(t)
	out, errOut, code := runTool(t, dir, bin, "-tags", "fixed", "./...")
	if code != exitClean || out != "" {
		t.Fatalf("exit code %d, output %q, stderr %q; want a clean run", code, out, errOut)
	}
}

// TestJSON checks the go vet -json shape of the output.
func TestJSON(t *testing.T) {
	bin := buildTool(t)
	dir := example(t)
	out, errOut, code := runTool(t, dir, bin, "-json", "./...")
	if code != exitFindings {
		t.Fatalf("exit code %d\n%s\n%s", code, out, errOut)
	}
	var tree map[string]map[string][]struct {
		Posn, Message, Category string
	}
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	got := tree["example.com/saas/billing"]["pglockorder"]
	if len(got) != 1 || got[0].Posn != "billing/invoice.go:36:23" || got[0].Category != "lock-order" {
		t.Fatalf("unexpected JSON findings: %+v", tree)
	}
}

// TestLoadError checks that a package that does not type-check is an error,
// not a silent pass.
func TestLoadError(t *testing.T) {
	bin := buildTool(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module broken\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package broken\n\nvar x int = \"s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runTool(t, dir, bin, "./...")
	if code != exitError || !strings.Contains(errOut, "b.go:3:13: cannot use") || !strings.Contains(errOut, "no package could be analysed") {
		t.Fatalf("exit code %d, stderr %q; want %d and a load error", code, errOut, exitError)
	}
}

// TestUsage checks the usage error status.
func TestUsage(t *testing.T) {
	bin := buildTool(t)
	_, _, code := runTool(t, ".", bin, "-no-such-flag")
	if code != exitUsage {
		t.Fatalf("exit code %d, want %d", code, exitUsage)
	}
}

// TestVet runs the command as go vet's tool on the corpus's seed scenario,
// where the API package imports the billing package, so the per-package run
// sees both paths.
func TestVet(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	_, errOut, code := runTool(t, dir, "go", "vet", "-vettool="+bin, "./seed/...")
	if code == 0 {
		t.Fatalf("go vet found nothing:\n%s", errOut)
	}
	for _, want := range []string{
		"seed/api/tier.go:22:22: lock-order inversion: rows of subscriptions and rows of usage_records",
		"billing.InvoiceAccount holds rows of subscriptions (FOR UPDATE)",
		"fix: take subscriptions before usage_records on every path",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("go vet output lacks %q:\n%s", want, errOut)
		}
	}
	// In vet mode the example's two packages never meet: nothing to see.
	_, errOut, code = runTool(t, example(t), "go", "vet", "-vettool="+bin, "./...")
	if code != 0 {
		t.Errorf("go vet on the example: exit %d\n%s", code, errOut)
	}
}

// TestWholeProgramSubset names only the API package: the billing package it
// imports, in the same module, is analysed too, so the cycle is still found.
func TestWholeProgramSubset(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	out, errOut, code := runTool(t, dir, bin, "./seed/api")
	if code != exitFindings || !strings.Contains(out, "rows of subscriptions and rows of usage_records are locked in opposite orders") {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The store's helpers reach the service through facts passed in
	// memory: their locks, and the call chain, are in the report.
	out, errOut, code = runTool(t, dir, bin, "./helpers/service")
	if code != exitFindings || !strings.Contains(out, "calls store.LockUsage") {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
