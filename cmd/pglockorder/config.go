package main

import (
	"fmt"
	"io"
	"slices"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
)

// checkConfigs reads the declared order of each module of the run before
// any package is analysed, so that an error in it is printed once, as the
// user's input, and returns the orders found.
func checkConfigs(pkgs []*packages.Package) ([]*analyzer.DeclaredOrder, error) {
	var roots []string
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main && p.Module.Dir != "" && !slices.Contains(roots, p.Module.Dir) {
			roots = append(roots, p.Module.Dir)
		}
	}
	if len(roots) == 0 {
		roots = []string{""} // an explicit -config still applies
	}
	var out []*analyzer.DeclaredOrder
	for _, root := range roots {
		o, _, err := analyzer.DeclaredOrderAt(root)
		if err != nil {
			return nil, err
		}
		if o != nil && !slices.ContainsFunc(out, func(x *analyzer.DeclaredOrder) bool { return x.File == o.File }) {
			out = append(out, o)
		}
	}
	return out, nil
}

// warnUnlockedNames warns about each name of a declared order that no
// analysed code locks: a misspelt table orders nothing, and the check
// would pass without checking.
func warnUnlockedNames(w io.Writer, orders []*analyzer.DeclaredOrder, locked []string, rel func(string) string) {
	for _, o := range orders {
		for _, u := range o.UnlockedNames(locked) {
			hint := "; no analysed code takes a lock it names"
			if u.Closest != "" {
				hint = fmt.Sprintf("; the closest name the code locks is %q", u.Closest)
			}
			fmt.Fprintf(w, "pglockorder: %s: %q in the declared order is never locked by the analysed code, so it orders nothing%s\n", rel(o.File), u.Name, hint)
		}
	}
}
