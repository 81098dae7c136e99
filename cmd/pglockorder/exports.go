package main

// Loading without compiling what the command reads from source.
//
// `go list -deps -export` compiles every package it lists for its export
// data, the analysed packages and their importers included, although the
// command type-checks those from source and reads export data only for the
// packages it does not analyse. After an edit of an analysed package, that
// compilation of the edited package and its importers was most of the
// run's time, paid again on top of the command's own type-checking.
//
// So, with the cache on, the command lists the packages without export
// data (one `go list -deps`, which compiles nothing and runs no cgo), keys the
// run and each package by identities computed from their files and their
// imports' identities (as the go command's action IDs are), and asks for
// export data only when it must analyse, and only for what it reads
// through export data: the packages that the analysed packages import and
// do not analyse, and the roots it does not analyse (so that one that does
// not compile is reported as on a run that compiles everything). Those
// export files come from an earlier run's record when every input behind
// them is unchanged and go's build cache still holds them, else from a
// second `go list -deps -export` of just those packages, which compiles
// none of the analysed ones (but see listExports).
//
// Whenever that cannot give the analysis what it needs (a package that does
// not list or compile, an export file go did not write, a package the
// command cannot type-check), the run starts again with the one
// `go list -deps -export` of everything, so that it reports what went wrong
// exactly as before.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// listMode is loadMode without export data, cgo's output files and the
// target's sizes: the packages, their files and imports, which `go list`
// gives without compiling or running anything (-compiled ran cgo and cost
// as much CPU as the rest of the listing: on hatchet after an edit 0.9 s
// against 0.4 s). A package's CompiledGoFiles are then its GoFiles: an
// analysed package that uses cgo does not type-check from them, and makes
// the run load again with export data.
const listMode = loadMode &^ (packages.NeedExportFile | packages.NeedCompiledGoFiles | packages.NeedTypesSizes)

// identities names each package by its inputs: its files (their contents,
// or, for the standard library and the module cache, which the go command
// never lets change, their names, sizes and modification times) and the
// identities of the packages it imports. Two runs give a package the same
// identity only if its source and everything it imports are the same: what
// the export data of a compiled package is a function of, and what an
// analysed package's types and syntax are.
type identities struct {
	of map[*packages.Package]string
}

// newIdentities computes the identities of pkgs and of every package they
// import; it fails if a file cannot be read.
func newIdentities(pkgs []*packages.Package) (*identities, error) {
	ids := &identities{of: map[*packages.Package]string{}}
	for _, p := range pkgs {
		if _, err := ids.visit(p); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (ids *identities) visit(p *packages.Package) (string, error) {
	if id, ok := ids.of[p]; ok {
		return id, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", p.ID, p.PkgPath, p.Name)
	for _, e := range p.Errors {
		fmt.Fprintf(h, "error %s\x00", e)
	}
	readOnly := unchangeable(p)
	// Not CompiledGoFiles: cgo's output, which only a load with export
	// data lists, is a function of the GoFiles and OtherFiles.
	files := slices.Concat(p.GoFiles, p.OtherFiles, p.EmbedFiles)
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		fmt.Fprintf(h, "file %s\x00", f)
		if readOnly {
			fi, err := os.Stat(f)
			if err != nil {
				return "", fmt.Errorf("identity of %s: %w", p.ID, err)
			}
			fmt.Fprintf(h, "%d %d\x00", fi.Size(), fi.ModTime().UnixNano())
			continue
		}
		if err := hashFile(h, f); err != nil {
			return "", fmt.Errorf("identity of %s: %w", p.ID, err)
		}
	}
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		id, err := ids.visit(p.Imports[path])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "import %s %s\x00", path, id)
	}
	id := hex.EncodeToString(h.Sum(nil))
	ids.of[p] = id
	return id, nil
}

// unchangeable reports whether p's files are the standard library's or a
// module's in the module cache, which the go command never lets change
// (the module cache is read-only, and a module's version names its
// contents): for those, a file's name, size and modification time stand for
// its contents, and a run need not read thousands of files to know that
// nothing changed.
func unchangeable(p *packages.Package) bool {
	m := p.Module
	if m == nil {
		first, _, _ := strings.Cut(p.PkgPath, "/")
		return !strings.Contains(first, ".") && !synthesized(p) && testBinary(p) == ""
	}
	return !m.Main && m.Replace == nil && m.Version != "" && strings.HasSuffix(m.Dir, "@"+m.Version)
}

// exportRecord is an export file that an earlier run was given for a
// package, and the package's identity then.
type exportRecord struct {
	Identity string
	File     string
}

// exportsDir is the directory, inside the result cache, of the export
// files each set of patterns was given.
const exportsDir = "exports"

func (c resultCache) exportsFile(cfg *packages.Config, patterns []string) string {
	name := c.loadsFile(cfg, patterns)
	if name == "" {
		return ""
	}
	return filepath.Join(c.dir, exportsDir, filepath.Base(name))
}

// errFullLoad says that the split load cannot give the analysis what it
// needs: the run loads everything with export data instead.
var errFullLoad = errors.New("the packages must be loaded with export data")

// exportData gives the packages that the analysis of roots reads through
// export data their export files: from the record of an earlier run on the
// same patterns where their identities are unchanged and go's build cache
// still has the file, else from a go list of just those packages. It
// returns how many packages it read the export data of, how many of those
// a go list gave, and errFullLoad when that cannot be done.
func exportData(cfg *packages.Config, cache resultCache, patterns []string, roots []*packages.Package, reach reachability, ids *identities) (read, listed int, err error) {
	c := newChecker(roots, reach)
	var needed []*packages.Package
	seen := map[*packages.Package]bool{}
	need := func(p *packages.Package) {
		// A package without Go files (a directory of tests only,
		// listed without them) has no export data to read either.
		if !seen[p] && p.PkgPath != "unsafe" && !c.source(p) && len(p.CompiledGoFiles) > 0 {
			seen[p] = true
			needed = append(needed, p)
		}
	}
	for _, p := range roots {
		if !c.source(p) {
			need(p)
			continue
		}
		for _, imp := range p.Imports {
			need(imp)
		}
	}

	// What -compiled's go list gives: the target's sizes.
	sizes, err := targetSizes(cfg)
	if err != nil {
		return 0, 0, err
	}
	packages.Visit(roots, nil, func(p *packages.Package) { p.TypesSizes = sizes })

	name := cache.exportsFile(cfg, patterns)
	var recorded map[string]exportRecord
	if name != "" {
		_ = readGob(name, &recorded) // an optimisation: none is a miss
	}
	var missing []*packages.Package
	for _, p := range needed {
		r, ok := recorded[p.ID]
		if ok && r.Identity == ids.of[p] && r.File != "" {
			if _, err := os.Stat(r.File); err == nil {
				p.ExportFile = r.File
				continue
			}
		}
		missing = append(missing, p)
	}
	if len(missing) > 0 {
		if err := listExports(cfg, missing); err != nil {
			return 0, 0, err
		}
	}

	// Keep what this run was given, for the next.
	kept := make(map[string]exportRecord, len(needed))
	for _, p := range needed {
		kept[p.ID] = exportRecord{Identity: ids.of[p], File: p.ExportFile}
	}
	if name != "" && len(missing) > 0 {
		if os.MkdirAll(filepath.Dir(name), 0o755) == nil && writeGobFile(name, kept) == nil {
			pruneDir(filepath.Dir(name), maxCacheEntries)
		}
	}
	return len(needed), len(missing), nil
}

// listExports runs `go list -deps -export` on the packages that missing are
// (or are part of the test binary of) and gives missing their export files.
// It compiles missing and what they import only: none of them imports an
// analysed package, as what can reach SQL is imported only by what can.
// The exception is a test binary's variant of a package, which go list
// gives only with the tests of the package under test, compiled with them.
func listExports(cfg *packages.Config, missing []*packages.Package) error {
	// A test binary's variant of a package is listed with the tests of
	// the package under test; every other package without tests, which
	// would compile the tests of every package named.
	var plain, tested []string
	for _, p := range missing {
		if synthesized(p) || testBinary(p) != "" {
			tested = append(tested, underTest(p))
		} else {
			plain = append(plain, p.PkgPath)
		}
	}
	byID := map[string]*packages.Package{}
	for _, l := range []struct {
		paths []string
		tests bool
	}{{plain, false}, {tested, true}} {
		if len(l.paths) == 0 {
			continue
		}
		list := *cfg
		list.Mode, list.Tests = loadMode, l.tests
		slices.Sort(l.paths)
		pkgs, err := packages.Load(&list, slices.Compact(l.paths)...)
		if err != nil {
			return fmt.Errorf("%w: %w", errFullLoad, err)
		}
		var failed *packages.Package
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			byID[p.ID] = p
			if len(p.Errors) > 0 && failed == nil {
				failed = p
			}
		})
		if failed != nil {
			return fmt.Errorf("%w: %s: %w", errFullLoad, failed.ID, failed.Errors[0])
		}
	}
	for _, p := range missing {
		q := byID[p.ID]
		if q == nil || q.ExportFile == "" {
			return fmt.Errorf("%w: no export data for %s", errFullLoad, p.ID)
		}
		p.ExportFile = q.ExportFile
	}
	return nil
}

// targetSizes returns the sizes of the go command's target architecture
// for the gc compiler, as go/packages asks go list for them.
func targetSizes(cfg *packages.Config) (types.Sizes, error) {
	cmd := exec.Command("go", "env", "GOARCH")
	cmd.Dir, cmd.Env = cfg.Dir, cfg.Env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: go env GOARCH: %w", errFullLoad, err)
	}
	sizes := types.SizesFor("gc", strings.TrimSpace(string(out)))
	if sizes == nil {
		return nil, fmt.Errorf("%w: no sizes for GOARCH %q", errFullLoad, strings.TrimSpace(string(out)))
	}
	return sizes, nil
}

// withoutCgo gives every package of the import graph of pkgs, listed in
// listMode, its GoFiles as the files it compiles, as go list does for a
// package that does not use cgo.
func withoutCgo(pkgs []*packages.Package) {
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.PkgPath != "unsafe" {
			p.CompiledGoFiles = p.GoFiles
		}
	})
}

// anyErrors reports whether a package of the import graph of pkgs has
// errors.
func anyErrors(pkgs []*packages.Package) bool {
	found := false
	packages.Visit(pkgs, func(p *packages.Package) bool {
		found = found || len(p.Errors) > 0
		return !found
	}, nil)
	return found
}
