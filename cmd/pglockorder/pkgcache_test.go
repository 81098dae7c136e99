package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPackageCache edits one package of a program whose service calls
// ports that another package implements, and checks that the next run
// analyses again exactly the packages whose results can differ, and prints
// what a run without any cache prints.
func TestPackageCache(t *testing.T) {
	dir, cacheDir, run := cachedProgram(t, "./ports/...")
	declOnlyRe := regexp.MustCompile(`(\d+) packages type-checked without their function bodies`)
	restoredRe := regexp.MustCompile(`(\d+) packages' results from the per-package cache`)
	reanalysedRe := regexp.MustCompile(`per-package cache: (\S+)(?: \[[^]]*\])? analysed: (.*)`)
	// check compares a run with a fresh one and returns how many packages
	// were restored and which were analysed again, and why.
	var errOut string // of the last check's cached run
	check := func(what string) (int, map[string]string) {
		t.Helper()
		_, errOut, _ = cachedAndFresh(t, what, cacheDir, run)
		m := restoredRe.FindStringSubmatch(errOut)
		if m == nil {
			t.Fatalf("%s: no count of restored packages in -v:\n%s", what, errOut)
		}
		n, _ := strconv.Atoi(m[1])
		again := map[string]string{}
		for _, m := range reanalysedRe.FindAllStringSubmatch(errOut, -1) {
			again[m[1]] = m[2]
		}
		return n, again
	}

	first, errFirst := run()
	if !strings.Contains(first, "lock-order inversion") {
		t.Fatalf("the program has no finding to keep:\n%s\n%s", first, errFirst)
	}
	if !strings.Contains(errFirst, "0 packages' results from the per-package cache") {
		t.Fatalf("a first run restored packages:\n%s", errFirst)
	}

	total, again := check("unchanged")
	if total == 0 || len(again) != 0 {
		t.Fatalf("unchanged: %d restored, analysed again: %v", total, again)
	}

	// A comment in the service changes its files, not its facts: it is
	// analysed again, and so is what imports it (the key holds the
	// export data of the imports, which the go command writes anew),
	// but not the ports and their implementation.
	service := filepath.Join(dir, "ports", "service", "service.go")
	editFile(t, service, func(s string) string { return s + "\n// An edit that changes nothing.\n" })
	n, again := check("comment")
	if got := slices.Sorted(maps.Keys(again)); !slices.Equal(got, []string{"program/ports/cmd/api", "program/ports/service"}) || n != total-2 {
		t.Errorf("after a comment in the service: %d of %d restored, analysed again: %v", n, total, again)
	}
	// The restored packages' function bodies are not type-checked, and
	// the run needed one start.
	if m := declOnlyRe.FindStringSubmatch(errOut); m == nil || m[1] != strconv.Itoa(n) || strings.Contains(errOut, "starts") {
		t.Errorf("after a comment in the service, %d restored; want as many type-checked without their bodies, in one start:\n%s", n, errOut)
	}

	// An edit of an implementation changes its facts: the service, which
	// calls it through a port without importing it, is analysed again
	// because a fact it read changed, and the finding goes.
	pg := filepath.Join(dir, "ports", "postgres", "postgres.go")
	editFile(t, pg, func(s string) string {
		return strings.Replace(s, `"SELECT 1 FROM parcels WHERE id = $1 FOR UPDATE"`, `"SELECT 1 FROM parcels WHERE id = $1"`, 1)
	})
	_, again = check("implementation")
	if !strings.Contains(again["program/ports/postgres"], "no entry") || !strings.Contains(again["program/ports/service"], "changed") {
		t.Errorf("after an edit of the implementation, analysed again: %v", again)
	}
	// The service was planned as restored (its inputs did not change),
	// type-checked without its bodies: the run started again, with it
	// type-checked in full, and printed what a run without cache prints
	// (check).
	if !strings.Contains(errOut, "program/ports/service planned as restored, must be analysed: starting again") || !strings.Contains(errOut, "in 2 starts") {
		t.Errorf("after an edit of the implementation, the service was not planned as restored, or the run did not start again:\n%s", errOut)
	}
	if out, _ := run(); strings.Contains(out, "service.Dispatch.Deliver holds rows of parcels") {
		t.Errorf("the path through the edited implementation is still reported:\n%s", out)
	}
}

// TestPackageCachePrune checks that pruning keeps the most recently used
// entries.
func TestPackageCachePrune(t *testing.T) {
	c := &pkgCache{dir: t.TempDir()}
	now := time.Now()
	for i := range 5 {
		key := fmt.Sprintf("%02d%062d", i, i)
		name := c.file(key)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Entry i was used i minutes ago.
		at := now.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(name, at, at); err != nil {
			t.Fatal(err)
		}
	}
	c.prune(2)
	left, err := filepath.Glob(filepath.Join(c.dir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range left {
		keys = append(keys, filepath.Base(f)[:2])
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"00", "01"}) {
		t.Errorf("after pruning to 2: %v, want the two most recently used (00, 01)", keys)
	}
}

// TestPackageCacheGroup edits one package of a group of packages that call
// each other's interfaces (analysed in two rounds) and checks that the
// other members are restored, not analysed again, and that the output is a
// run's without cache; then edits its SQL and checks the same.
func TestPackageCacheGroup(t *testing.T) {
	dir, _, run := cachedProgram(t, "./txctx/...")
	reanalysedRe := regexp.MustCompile(`per-package cache: (\S+)(?: \[[^]]*\])? analysed: (.*)`)
	check := func(what string) map[string]string {
		t.Helper()
		// The whole-run entries would answer before the per-package
		// cache: an edit changes the files, and so their key.
		out, errOut := run()
		fresh, _ := run("-cache=false")
		if out != fresh {
			t.Errorf("%s: output differs from a run without cache:\n--- cached\n%s\n--- fresh\n%s", what, out, fresh)
		}
		again := map[string]string{}
		for _, m := range reanalysedRe.FindAllStringSubmatch(errOut, -1) {
			again[m[1]] += m[2] + "; "
		}
		return again
	}
	first, errFirst := run()
	if !strings.Contains(first, "lock-order inversion") || !strings.Contains(errFirst, "program/txctx/checkout, program/txctx/refunds") {
		t.Fatalf("the program has no finding, or no group of checkout and refunds:\n%s\n%s", first, errFirst)
	}

	// A comment in refunds: refunds and the command that imports it are
	// analysed again; checkout, in their group, is restored in both rounds.
	refunds := filepath.Join(dir, "txctx", "refunds", "refunds.go")
	editFile(t, refunds, func(s string) string { return s + "\n// An edit that changes nothing.\n" })
	again := check("comment")
	if _, ok := again["program/txctx/checkout"]; ok || again["program/txctx/refunds"] == "" {
		t.Errorf("after a comment in refunds, analysed again: %v; want refunds, not checkout", again)
	}

	// Refunds taking the order first: its facts change, the finding goes.
	editFile(t, refunds, func(s string) string {
		s = strings.Replace(s, "if err := s.Locks.LockPayment(ctx, id); err != nil {", "if err := s.Locks.LockOrder(ctx, id); err != nil {", 1)
		return strings.Replace(s, "return s.Locks.LockOrder(ctx, id) //", "return s.Locks.LockPayment(ctx, id) //", 1)
	})
	if again := check("SQL order"); again["program/txctx/checkout"] != "" {
		t.Errorf("after an edit of refunds' order, checkout analysed again: %v", again)
	}
	if out, _ := run(); strings.Contains(out, "lock-order inversion") {
		t.Errorf("the inversion fixed in refunds is still reported:\n%s", out)
	}

	// The command's implementation of LockOrder locking payments instead:
	// checkout's first round read none of the command's facts and is
	// restored; its second read them and is made again.
	editFile(t, filepath.Join(dir, "txctx", "cmd", "app", "main.go"), func(s string) string {
		return strings.Replace(s, "{ return l.orders.LockOrder(ctx, id) }", "{ return l.payments.LockPayment(ctx, id) }", 1)
	})
	again = check("implementation")
	if got := again["program/txctx/checkout"]; !strings.Contains(got, "round 2: a fact it read changed") || strings.Contains(got, "round 1") {
		t.Errorf("after an edit of the command's implementation, checkout: %q; want its second round only analysed again", got)
	}
}

// cachedProgram copies testdata/program and returns its directory, the
// cache directory of the runs, and a function that runs the command with
// -v -debug and args over pattern there, with that cache.
func cachedProgram(t *testing.T, pattern string) (dir, cacheDir string, run func(args ...string) (stdout, stderr string)) {
	t.Helper()
	bin := buildTool(t)
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "program"))
	if err != nil {
		t.Fatal(err)
	}
	dir = copyModule(t, src)
	cacheDir = t.TempDir()
	run = func(args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-v", "-debug"}, append(args, pattern)...)...)
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
	return dir, cacheDir, run
}

// cachedAndFresh forgets the whole-run entries of the cache, runs with the
// cache (so from the per-package cache) and without it, reports a
// difference of their outputs, and returns the output without cache and
// both runs' standard errors.
func cachedAndFresh(t *testing.T, what, cacheDir string, run func(args ...string) (string, string)) (fresh, cachedErr, freshErr string) {
	t.Helper()
	forgetRuns(t, cacheDir)
	out, cachedErr := run()
	fresh, freshErr = run("-cache=false")
	for _, e := range []string{cachedErr, freshErr} {
		if strings.Contains(e, "internal error") {
			t.Errorf("%s: %s", what, e)
		}
	}
	if out != fresh {
		t.Errorf("%s: output differs from a run without cache:\n--- cached\n%s\n--- fresh\n%s", what, out, fresh)
	}
	return fresh, cachedErr, freshErr
}

// TestPackageCacheVariants checks that a package that read a fact, absent,
// of a package whose test variant only is analysed is restored: the run
// analyses that variant, which the package does not see.
func TestPackageCacheVariants(t *testing.T) {
	_, cacheDir, run := cachedProgram(t, "./variants/...")
	run()
	// Without the whole-run entries, the next run may use only the
	// per-package cache.
	forgetRuns(t, cacheDir)
	out, errOut := run()
	if strings.Contains(errOut, "per-package cache: program/variants/store analysed") {
		t.Errorf("store analysed again on an unchanged tree:\n%s", errOut)
	}
	if !strings.Contains(errOut, "results from the per-package cache") || strings.Contains(errOut, " 0 packages' results from the per-package cache") {
		t.Errorf("nothing restored:\n%s", errOut)
	}
	if fresh, _ := run("-cache=false"); out != fresh {
		t.Errorf("output differs from a run without cache:\n--- cached\n%s\n--- fresh\n%s", out, fresh)
	}
}

// forgetRuns removes the whole-run entries of the cache in cacheDir, so that
// the next run analyses and may use only the per-package cache.
func forgetRuns(t *testing.T, cacheDir string) {
	t.Helper()
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			if err := os.Remove(filepath.Join(cacheDir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCheckedAtItsTurn checks the driver's two type-checks (driver.go): the
// packages the per-package cache restores keep the types of the planning
// pass, the others are checked again when their turn comes, and export data
// read against the types of a package checked again is read again: here
// that of "billing [guard.test]", the variant of billing built for guard's
// tests, which names accounts' types. After an edit of a package nothing
// imports, then of accounts, a run prints what a run without cache prints,
// restores some packages, and neither starts again nor loads again.
func TestCheckedAtItsTurn(t *testing.T) {
	dir, cacheDir, run := cachedProgram(t, "./recompiled/...")
	first, _ := run()
	if !strings.Contains(first, "lock-order inversion") {
		t.Fatalf("the inversion of accounts and billing not found:\n%s", first)
	}
	for _, edited := range []string{"audit", "accounts"} {
		file := filepath.Join(dir, "recompiled", edited, edited+".go")
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("\nfunc edited() int { return 1 }\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		fresh, cachedErr, _ := cachedAndFresh(t, edited+" edited", cacheDir, run)
		if fresh != first {
			t.Errorf("%s edited: the findings changed:\n%s", edited, fresh)
		}
		for _, bad := range []string{"loading again", "starting again"} {
			if strings.Contains(cachedErr, bad) {
				t.Errorf("%s edited: the run went on %s:\n%s", edited, bad, cachedErr)
			}
		}
		if !strings.Contains(cachedErr, "results from the per-package cache") || strings.Contains(cachedErr, " 0 packages' results from the per-package cache") {
			t.Errorf("%s edited: nothing restored:\n%s", edited, cachedErr)
		}
	}
}
