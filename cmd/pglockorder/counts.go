package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// sqlCounts is what -v says about the SQL the analysis found. It is
// computed from the sites and skips the analysis recorded, the data the
// lock graph and the findings were built from, and kept in the result
// cache so that a cached run says the same.
type sqlCounts struct {
	// CallSites counts the calls that send SQL (distinct positions; a
	// package and its test variant share them).
	CallSites int
	// LockSites counts those of them whose SQL requests a lock that can
	// order anything (lockseq.Site.Locks).
	LockSites int
	// Parsed counts the distinct statements analysed: SQL texts, at their
	// call sites, that PostgreSQL's parser read.
	Parsed int
	// Skipped counts the places whose SQL was not analysed, by reason
	// (lockseq.SkipReason: unparsable, built at run time, another
	// dialect), once per place and reason as the end-of-run line does.
	Skipped map[lockseq.SkipReason]int
}

// countSQL counts the sites and skips of a run.
func countSQL(sites []lockseq.Site, skips []lockseq.Skip) sqlCounts {
	calls, locks, parsed := map[string]bool{}, map[string]bool{}, map[[2]string]bool{}
	for _, s := range sites {
		calls[s.Pos] = true
		if s.Locks {
			locks[s.Pos] = true
		}
		if !s.Dynamic {
			parsed[[2]string{s.Pos, s.SQL}] = true
		}
	}
	c := sqlCounts{LockSites: len(locks), Parsed: len(parsed), Skipped: map[lockseq.SkipReason]int{}}
	for _, s := range lockseq.UniqueSkips(skips) {
		// A call whose SQL was skipped sends SQL too.
		calls[s.Posn] = true
		c.Skipped[s.Reason]++
	}
	c.CallSites = len(calls)
	return c
}

// String is the -v line: "SQL: 7 call sites send SQL, 5 of them lock
// sites; 9 SQL strings found: 7 parsed, 1 unparsable, 1 another dialect's;
// 1 query text built at run time".
func (c sqlCounts) String() string {
	found := c.Parsed + c.Skipped[lockseq.SkipUnparsable] + c.Skipped[lockseq.SkipDialect]
	var b strings.Builder
	fmt.Fprintf(&b, "SQL: %s send SQL, %d of them lock sites (a row, advisory or explicit table lock); "+
		"%s found: %d parsed, %d unparsable, %d skipped as another dialect's; %s built at run time",
		count(c.CallSites, "call site", "call sites"), c.LockSites, count(found, "SQL string", "SQL strings"), c.Parsed,
		c.Skipped[lockseq.SkipUnparsable], c.Skipped[lockseq.SkipDialect],
		count(c.Skipped[lockseq.SkipRuntime], "query text", "query texts"))
	for _, r := range slices.Sorted(maps.Keys(c.Skipped)) {
		switch r {
		case lockseq.SkipUnparsable, lockseq.SkipDialect, lockseq.SkipRuntime:
		default:
			fmt.Fprintf(&b, "; %d skipped (%s)", c.Skipped[r], r)
		}
	}
	return b.String()
}

// count writes n and the noun, singular or plural.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// graphCounts is what -v says about the lock-order graph: the graph the
// cycle search ran on, and the part of it that -graph draws, counted by the
// same selection that draws it (newDrawing).
type graphCounts struct {
	// Paths counts the acquisition paths: the graph's edges, each a
	// function holding one lock while requesting another, at its
	// positions.
	Paths int
	// Pairs counts the distinct (held, requested) pairs of lock classes
	// among them: the arrows the cycle search follows.
	Pairs int
	// Drawn counts the pairs -graph draws: those that take part in a lock
	// order (analyzer.Ordered), and those on a reported cycle.
	Drawn int
}

// countGraph counts a graph and what newDrawing draws of it.
func countGraph(g *lockgraph.Graph, cycles []*lockgraph.Cycle) graphCounts {
	pairs := map[[2]lockgraph.Class]bool{}
	for _, e := range g.Edges() {
		pairs[[2]lockgraph.Class{e.Held.Class, e.Wanted.Class}] = true
	}
	return graphCounts{Paths: len(g.Edges()), Pairs: len(pairs), Drawn: len(newDrawing(g, cycles).edges)}
}

// String is the -v line about the graph.
func (c graphCounts) String() string {
	return fmt.Sprintf("lock graph: %d acquisition paths over %d distinct lock pairs; -graph draws %d of the pairs "+
		"(the others pair only the implicit table locks of plain DML)", c.Paths, c.Pairs, c.Drawn)
}
