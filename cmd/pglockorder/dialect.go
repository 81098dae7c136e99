package main

import (
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// linkedDialects works out, over the whole program, the dialect of the
// packages of the main module(s) whose SQL is not PostgreSQL although they
// import no driver themselves (a store on database/sql whose binary
// registers the MySQL driver in main), for the analyzer's linked-dialects
// flag: "importpath=dialect,...".
//
// A package speaks dialect D when the drivers reachable from it (its
// transitive imports) are all of D, or, when it reaches none, when every
// binary (main package, test binaries included) that imports it links
// drivers, none of them PostgreSQL's, and all of D. Several such dialects
// give "mysql+sqlite". Any PostgreSQL driver in the picture, or a binary
// that links none, leaves the package PostgreSQL.
func linkedDialects(roots []*packages.Package) string {
	var all []*packages.Package
	packages.Visit(roots, nil, func(p *packages.Package) { all = append(all, p) })
	reach := map[*packages.Package]map[string]bool{}
	var drivers func(p *packages.Package) map[string]bool
	drivers = func(p *packages.Package) map[string]bool {
		if d, ok := reach[p]; ok {
			return d
		}
		out := map[string]bool{}
		reach[p] = out // an import cycle cannot happen; this only guards
		if d := sqlsite.DriverDialect(p.PkgPath); d != "" {
			out[d] = true
			return out // a driver's own imports say nothing more
		}
		for _, imp := range p.Imports {
			for d := range drivers(imp) {
				out[d] = true
			}
		}
		return out
	}
	// The binaries that import each package, by import path.
	linkedBy := map[string][]map[string]bool{}
	for _, p := range all {
		if p.Name != "main" {
			continue
		}
		linked := drivers(p)
		seen := map[*packages.Package]bool{}
		var walk func(q *packages.Package)
		walk = func(q *packages.Package) {
			if seen[q] {
				return
			}
			seen[q] = true
			linkedBy[q.PkgPath] = append(linkedBy[q.PkgPath], linked)
			for _, imp := range q.Imports {
				walk(imp)
			}
		}
		walk(p)
	}
	var entries []string
	done := map[string]bool{}
	for _, p := range all {
		if p.Module == nil || !p.Module.Main || done[p.PkgPath] {
			continue
		}
		done[p.PkgPath] = true
		if d := foreignDialect(drivers(p)); d != "" {
			entries = append(entries, p.PkgPath+"="+d)
			continue
		}
		if len(drivers(p)) > 0 || len(linkedBy[p.PkgPath]) == 0 {
			continue
		}
		union := map[string]bool{}
		ok := true
		for _, linked := range linkedBy[p.PkgPath] {
			if len(linked) == 0 || linked[sqlsite.PostgreSQL] {
				ok = false
				break
			}
			for d := range linked {
				union[d] = true
			}
		}
		if d := foreignDialect(union); ok && d != "" {
			entries = append(entries, p.PkgPath+"="+d)
		}
	}
	slices.Sort(entries)
	return strings.Join(entries, ",")
}

// foreignDialect names a set of dialects without PostgreSQL ("mysql",
// "mysql+sqlite"), or "" when it is empty or includes PostgreSQL.
func foreignDialect(set map[string]bool) string {
	if len(set) == 0 || set[sqlsite.PostgreSQL] {
		return ""
	}
	var ds []string
	for d := range set {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return strings.Join(ds, "+")
}

// prefixLines puts prefix before every line of text.
func prefixLines(prefix, text string) string {
	if text == "" {
		return ""
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
