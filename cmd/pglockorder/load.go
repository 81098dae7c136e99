package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
)

// checkDir reports a -C directory that cannot be used, in the user's terms:
// the go command would otherwise fail to start in it with a fork/exec error
// that names the go binary.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-C %s: the directory does not exist", dir)
	case err != nil:
		return fmt.Errorf("-C %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("-C %s: not a directory", dir)
	}
	return nil
}

// goListError returns what the go command says when packages.Load found no
// packages: go/packages drops errors that concern the module rather than a
// package (a go.mod that needs go mod tidy, a missing go.sum entry), which
// would leave the user with "no packages match". "" when go list has
// nothing to say.
func goListError(cfg *packages.Config, patterns []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"list", "-e", "-f", "{{with .Error}}{{.Err}}{{end}}"}, cfg.BuildFlags...)
	args = append(args, "--")
	args = append(args, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // the output is the answer; a failure to run says nothing more
	return strings.TrimSpace(stderr.String() + stdout.String())
}

// errInternal marks a panic of the analyzer, turned into an error for its
// package: by the driver, or by the pass itself (analyzer.ErrInternal).
var errInternal = analyzer.ErrInternal

// leftOut is a package the run could not analyse.
type leftOut struct {
	// Pkg is the package's import path.
	Pkg string
	// Err is its first error; Via, for a package that loads but imports
	// one that was left out, names that package instead.
	Err, Via string
	// More counts its other errors.
	More int
}

func (l leftOut) String() string {
	switch {
	case l.Via != "":
		return fmt.Sprintf("%s: imports %s, which was left out", l.Pkg, l.Via)
	case l.More > 0:
		return fmt.Sprintf("%s: %s (and %d more error(s))", l.Pkg, l.Err, l.More)
	}
	return fmt.Sprintf("%s: %s", l.Pkg, l.Err)
}

// partition splits the loaded packages into those that can be analysed and
// those left out: a package that does not load or compile costs itself and
// the packages that import it, directly or not, never the rest of the run.
func partition(pkgs []*packages.Package) (ok []*packages.Package, out []leftOut) {
	// bad maps every package of the import graph that cannot be
	// analysed to the package it fails because of (itself, or a
	// dependency with errors of its own).
	bad := map[*packages.Package]*packages.Package{}
	own := map[*packages.Package][]string{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if errs := packageErrors(p); len(errs) > 0 {
			own[p], bad[p] = errs, p
			return
		}
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			if cause, ok := bad[p.Imports[path]]; ok {
				bad[p] = cause
				return
			}
		}
	})
	seen := map[string]bool{}
	add := func(l leftOut) {
		if !seen[l.Pkg] {
			seen[l.Pkg] = true
			out = append(out, l)
		}
	}
	// Packages with errors of their own come first, in the order go
	// list gave them, then the roots that import them.
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if errs := own[p]; len(errs) > 0 {
			add(leftOut{Pkg: p.PkgPath, Err: errs[0], More: len(errs) - 1})
		}
	})
	for _, p := range pkgs {
		cause, failed := bad[p]
		switch {
		case !failed:
			ok = append(ok, p)
		case cause != p && !synthesized(p):
			add(leftOut{Pkg: p.PkgPath, Via: cause.PkgPath})
		}
	}
	return ok, out
}

// patternErrors returns the errors of the pseudo-packages go list reports
// for a pattern that matches no package (a directory that does not
// exist): they are not packages to leave out.
func patternErrors(pkgs []*packages.Package) []string {
	var out []string
	for _, p := range pkgs {
		if p.Name == "" && len(p.GoFiles)+len(p.CompiledGoFiles)+len(p.OtherFiles) == 0 && len(p.Imports) == 0 {
			out = append(out, packageErrors(p)...)
		}
	}
	return out
}

// synthesized reports whether p is the test main package the go command
// generates: its failures are those of the package it tests.
func synthesized(p *packages.Package) bool {
	return p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test")
}

// packageErrors returns a package's own errors, once each: the go command's
// report of a compile error ("# pkg" and the compiler's lines) becomes its
// lines.
func packageErrors(p *packages.Package) []string {
	var out []string
	for _, err := range p.Errors {
		msg := strings.TrimPrefix(err.Error(), "-: ")
		if rest, ok := strings.CutPrefix(msg, "# "); ok {
			// "# example.com/x\nx/a.go:3:9: undefined: y\n..."
			_, lines, _ := strings.Cut(rest, "\n")
			for l := range strings.SplitSeq(lines, "\n") {
				if l = strings.TrimSpace(l); l != "" && !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
			continue
		}
		if !slices.Contains(out, msg) {
			out = append(out, msg)
		}
	}
	return out
}

// unitsLeftOut turns the packages whose analysis failed (a type error the
// go command did not report, an analyzer error) into left-out packages:
// one that fails because a package it imports failed names that one.
func unitsLeftOut(failed map[*packages.Package]error) []leftOut {
	var out []leftOut
	seen := map[string]bool{}
	for _, p := range slices.SortedFunc(maps.Keys(failed), func(a, b *packages.Package) int { return strings.Compare(a.ID, b.ID) }) {
		if seen[p.PkgPath] || synthesized(p) {
			continue
		}
		seen[p.PkgPath] = true
		l := leftOut{Pkg: p.PkgPath}
		if via := failedImport(p, failed); via != nil {
			l.Via = via.PkgPath
		} else {
			msg := failed[p].Error()
			l.Err, _, _ = strings.Cut(msg, "\n")
			if !errors.Is(failed[p], errInternal) {
				// Type errors, one a line; a panic's stack is not
				// more errors.
				l.More = strings.Count(strings.TrimSpace(msg), "\n")
			}
		}
		out = append(out, l)
	}
	return out
}

// failedImport returns a package that p imports, directly or not, whose
// analysis failed, or nil.
func failedImport(p *packages.Package, failed map[*packages.Package]error) *packages.Package {
	seen := map[*packages.Package]bool{}
	var find func(q *packages.Package) *packages.Package
	find = func(q *packages.Package) *packages.Package {
		for _, path := range slices.Sorted(maps.Keys(q.Imports)) {
			imp := q.Imports[path]
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if _, ok := failed[imp]; ok {
				return imp
			}
			if f := find(imp); f != nil {
				return f
			}
		}
		return nil
	}
	return find(p)
}

// printLeftOut prints the one summary of the packages left out: each with
// its first error, and, unless quiet, what the exit status will say.
func printLeftOut(w io.Writer, out []leftOut, analysed int, quiet bool) {
	if len(out) == 0 {
		return
	}
	fmt.Fprintf(w, "pglockorder: %d package(s) left out of the analysis (they do not load or type-check); the %d other(s) were analysed:\n", len(out), analysed)
	for _, l := range out {
		fmt.Fprintf(w, "\t%s\n", l)
	}
	if !quiet {
		fmt.Fprintln(w, "pglockorder: the exit status is 1 while packages are left out; -partial accepts a partial analysis")
	}
}

// analysedCount counts the packages of pkgs that were not left out, a
// package and its test variant being one.
func analysedCount(pkgs []*packages.Package, left []leftOut) int {
	seen := map[string]bool{}
	for _, l := range left {
		seen[l.Pkg] = false
	}
	n := 0
	for _, p := range pkgs {
		if _, ok := seen[p.PkgPath]; !ok && !synthesized(p) {
			seen[p.PkgPath] = true
			n++
		}
	}
	return n
}
