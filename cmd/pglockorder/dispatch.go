package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// printDispatch prints, for -v, how the calls through interfaces were
// followed: how many there were, how many ran an implementation that takes
// locks (and how many implementations that made), how many had only
// implementations that take none, and how many had too many to follow;
// and how many packages the schedule put after an implementation they call
// without importing it.
func printDispatch(w io.Writer, d lockseq.DispatchStats, implDeps int, groups [][]string, reused int) {
	fmt.Fprintf(w, "pglockorder: calls through interfaces: %d; %d resolved to %d implementations that take locks, %d to implementations that take none, %d not followed (over %d implementations)\n",
		d.Calls, d.Resolved, d.Impls, d.NoLocks, d.TooMany, lockseq.MaxImpls)
	if implDeps > 0 {
		fmt.Fprintf(w, "pglockorder: %d package dependencies through implemented interfaces; %d groups of packages that depend on each other analysed twice (%d second passes not needed: what they read had not changed)\n", implDeps, len(groups), reused)
	}
	const shown = 4
	for _, g := range groups {
		more := ""
		if len(g) > shown {
			more = fmt.Sprintf(" and %d more", len(g)-shown)
		}
		fmt.Fprintf(w, "pglockorder: analysed twice, as they call interfaces the others implement: %s%s\n", strings.Join(g[:min(len(g), shown)], ", "), more)
	}
}

// printUnfollowed lists, for -debug, the calls through interfaces that had
// too many implementations to follow.
func printUnfollowed(w io.Writer, d lockseq.DispatchStats, rel func(string) string) {
	lines := slices.Clone(d.Unfollowed)
	slices.Sort(lines)
	for _, l := range slices.Compact(lines) {
		posn, what, _ := strings.Cut(l, "\t")
		fmt.Fprintf(w, "pglockorder: call not followed: %s: %s\n", rel(posn), what)
	}
}
