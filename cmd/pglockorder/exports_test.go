package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestSplitLoad checks the load without export data (exports.go): a run
// with the cache prints what a run that compiles every package prints; it
// reads the export data of the packages it does not analyse from its record
// when only an analysed package changed, and asks go list for those of a
// changed package it does not analyse; and where a package does not compile
// it loads again with export data and reports it as that run does.
func TestSplitLoad(t *testing.T) {
	dir, cacheDir, run := cachedProgram(t, "./ports/...")
	// A package of the pattern that runs no SQL: seen through export
	// data only.
	util := filepath.Join(dir, "ports", "util", "util.go")
	if err := os.MkdirAll(filepath.Dir(util), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(util, []byte("// Package util adds.\npackage util\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory of tests only: no export data to ask for.
	e2e := filepath.Join(dir, "ports", "e2e", "e2e_test.go")
	if err := os.MkdirAll(filepath.Dir(e2e), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e2e, []byte("package e2e_test\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exportsRe := regexp.MustCompile(`export data of (\d+) packages not analysed, (\d+) of them from an earlier run's record, (\d+) from go list`)
	// check compares a run with one without cache, and returns how
	// many packages' export data it read and how many go list gave
	// (-1 if it loaded everything with export data).
	check := func(what string) (read, listed int, errOut string) {
		t.Helper()
		_, errOut, freshErr := cachedAndFresh(t, what, cacheDir, run)
		if got, want := leftOutLines(errOut), leftOutLines(freshErr); got != want {
			t.Errorf("%s: left out differently from a run without cache:\n--- cached\n%s\n--- fresh\n%s", what, got, want)
		}
		m := exportsRe.FindStringSubmatch(errOut)
		if m == nil {
			if !strings.Contains(errOut, "every package compiled for its export data") {
				t.Fatalf("%s: -v says nothing of export data:\n%s", what, errOut)
			}
			return -1, -1, errOut
		}
		read, _ = strconv.Atoi(m[1])
		listed, _ = strconv.Atoi(m[3])
		return read, listed, errOut
	}

	read, listed, errOut := check("first run")
	if read == 0 || listed != read || strings.Contains(errOut, "loading again") {
		t.Fatalf("first run: export data of %d packages, %d listed; want all listed, without loading again:\n%s", read, listed, errOut)
	}
	// The analysed service changes: every export file is the record's.
	service := filepath.Join(dir, "ports", "service", "service.go")
	editFile(t, service, func(s string) string { return s + "\n// An edit.\n" })
	if r, l, errOut := check("comment in the service"); r != read || l != 0 {
		t.Errorf("comment in the service: export data of %d packages, %d listed; want %d, none listed:\n%s", r, l, read, errOut)
	}
	// The package that runs no SQL changes: go list gives its export
	// data, and only its.
	editFile(t, util, func(s string) string { return s + "\n// An edit.\n" })
	if r, l, errOut := check("comment in util"); r != read || l != 1 {
		t.Errorf("comment in util: export data of %d packages, %d listed; want %d, one listed:\n%s", r, l, read, errOut)
	}
	// A type error in either: loaded again with export data, and left
	// out as a run without cache leaves it out (check).
	for _, file := range []string{util, service} {
		orig, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		editFile(t, file, func(s string) string { return s + "\nvar _ int = \"not an int\"\n" })
		r, _, errOut := check("type error in " + filepath.Base(file))
		if r != -1 || !strings.Contains(errOut, "loading again with export data") || !strings.Contains(errOut, "left out of the analysis") {
			t.Errorf("type error in %s: not loaded again with export data, or not left out:\n%s", filepath.Base(file), errOut)
		}
		if err := os.WriteFile(file, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Fixed again: split, every export file from the record.
	if r, l, errOut := check("fixed"); r != read || l != 0 {
		t.Errorf("fixed: export data of %d packages, %d listed; want %d, none listed:\n%s", r, l, read, errOut)
	}
}

// leftOutLines returns the lines of a run's standard error that say which
// packages were left out.
func leftOutLines(stderr string) string {
	var out []string
	for l := range strings.SplitSeq(stderr, "\n") {
		if strings.Contains(l, "left out") || strings.HasPrefix(l, "\t") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestIdentities checks that a package's identity changes with its files
// and with those of what it imports, and with nothing else.
func TestIdentities(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "program"))
	if err != nil {
		t.Fatal(err)
	}
	dir := copyModule(t, src)
	load := func() map[string]string {
		t.Helper()
		pkgs, err := packages.Load(&packages.Config{Mode: listMode, Dir: dir}, "./ports/...")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := newIdentities(pkgs)
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string]string{}
		for p, id := range ids.of {
			byPath[p.ID] = id
		}
		return byPath
	}
	before := load()
	if again := load(); !maps.Equal(before, again) {
		t.Fatalf("identities differ between two loads of the same tree")
	}
	editFile(t, filepath.Join(dir, "ports", "service", "service.go"), func(s string) string { return s + "\n// An edit.\n" })
	after := load()
	for id, want := range map[string]bool{
		"program/ports/service":  true, // edited
		"program/ports/cmd/api":  true, // imports it
		"program/ports/domain":   false,
		"program/ports/postgres": false,
		"context":                false,
	} {
		if before[id] == "" {
			t.Fatalf("no identity for %s", id)
		}
		if changed := before[id] != after[id]; changed != want {
			t.Errorf("%s: identity changed %t, want %t", id, changed, want)
		}
	}
}

// TestSplitLoadCgo checks that an analysed package that uses cgo, which the
// split load lists without cgo's output, is analysed as a run that
// compiles every package analyses it.
func TestSplitLoadCgo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc) for a cgo package")
	}
	dir, cacheDir, run := cachedProgram(t, "./ports/...")
	cgoq := filepath.Join(dir, "ports", "cgoq", "cgoq.go")
	if err := os.MkdirAll(filepath.Dir(cgoq), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `// Package cgoq locks a parcel, and uses cgo.
package cgoq

// #include <stdlib.h>
import "C"

import (
	"context"
	"database/sql"
)

// Lock locks a parcel.
func Lock(ctx context.Context, tx *sql.Tx, id int64) error {
	_ = C.size_t(id)
	_, err := tx.ExecContext(ctx, "SELECT 1 FROM parcels WHERE id = $1 FOR UPDATE", id)
	return err
}
`
	if err := os.WriteFile(cgoq, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, errOut, freshErr := cachedAndFresh(t, "a cgo package", cacheDir, run)
	if leftOutLines(errOut) != leftOutLines(freshErr) {
		t.Errorf("left out differently from a run without cache:\n--- cached\n%s\n--- fresh\n%s", errOut, freshErr)
	}
	if !strings.Contains(errOut, "loading again with export data") || strings.Contains(errOut, "left out") {
		t.Errorf("the cgo package was not analysed after loading again with export data:\n%s", errOut)
	}
	// The run that loaded again stored its results under the key the
	// split load computes: an unchanged tree is answered from the cache,
	// without loading again.
	if again, errAgain := run(); again != fresh || !strings.Contains(errAgain, "results from the cache") || strings.Contains(errAgain, "loading again") {
		t.Errorf("an unchanged tree with a cgo package was not answered from the cache:\n%s\n%s", again, errAgain)
	}
}

// TestKeyGoSettings checks that the go command's settings that no file
// list shows are part of the whole run's key, and that the key is the
// same for the same settings.
func TestKeyGoSettings(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "program"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{Mode: listMode, Dir: src}
	pkgs, err := packages.Load(cfg, "./ports/...")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := newIdentities(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	cache := resultCache{dir: t.TempDir()}
	key := func() string {
		t.Helper()
		k, _, ok := cache.key(pkgs, ids, cfg, []string{"./ports/..."})
		if !ok {
			t.Fatal("no key")
		}
		return k
	}
	t.Setenv("GOEXPERIMENT", "")
	t.Setenv("GOFLAGS", "")
	base := key()
	if again := key(); again != base {
		t.Fatalf("two keys of the same run differ")
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	if key() == base {
		t.Errorf("GOFLAGS is not part of the key")
	}
	t.Setenv("GOFLAGS", "")
	goenv := filepath.Join(t.TempDir(), "env")
	t.Setenv("GOENV", goenv)
	withFile := key()
	if err := os.WriteFile(goenv, []byte("GOEXPERIMENT=nocoverageredesign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if key() == withFile {
		t.Errorf("the go env -w file is not part of the key")
	}
}
