package analyzer

import (
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
)

// Mismatch is a pair of blocking locks of several rows of one table in two
// different orders: This is where it is reported, Other the other site.
type Mismatch struct {
	This, Other lockseq.OrderedLock
}

// OrderMismatches finds the pairs of ordered row locks that order one table
// differently and conflict. Each pair is reported once, at the later of its
// two positions, and each site at most once.
func OrderMismatches(locks []lockseq.OrderedLock) []Mismatch {
	var out []Mismatch
	reported := map[token.Position]bool{}
	for _, a := range locks {
		if reported[a.Pos] {
			continue
		}
		for _, b := range locks {
			if b.Table != a.Table || lockgraph.ComparePositions(b.Pos, a.Pos) >= 0 || compatibleOrders(a.Order, b.Order) ||
				lockgraph.TestCode(a.Pos.Filename, a.Pkg) != lockgraph.TestCode(b.Pos.Filename, b.Pkg) {
				// A test's statement is never set against production's.
				continue
			}
			if !lockmodel.ModesConflict(a.Mode, b.Mode) && !lockmodel.ModesConflict(b.Mode, a.Mode) {
				continue
			}
			reported[a.Pos] = true
			out = append(out, Mismatch{This: a, Other: b})
			break
		}
	}
	return out
}

// reportRows reports the package's row-order findings, and the order
// mismatches between its ordered locks and those of the packages it
// imports. It returns the ordered locks to pass on in the package fact.
func reportRows(pass *analysis.Pass, an *lockseq.Analysis, imported []lockseq.OrderedLock) []lockseq.OrderedLock {
	migration := isMigrationPackage(pass.Pkg.Path())
	for _, g := range foldRows(an.Rows) {
		if migration {
			// A migration runs once, under its tool's lock: no second
			// execution of the same code runs beside it.
			continue
		}
		f := g[0]
		msg := report.RowMessage(f, report.Options{Rel: moduleRelative})
		if len(g) > 1 {
			var also []string
			for _, o := range g[1:] {
				also = append(also, o.Func)
			}
			msg += "\n  also: the same statement in the transactions of " + strings.Join(also, ", ") + " (one fix, in the statement)"
		}
		emit(pass, analysis.Diagnostic{Pos: f.Pos, Category: report.RowCategory(f), Message: msg,
			Related: related(pass, report.RowRelated(f))})
	}
	all := slices.Concat(imported, an.Ordered)
	slices.SortFunc(all, func(a, b lockseq.OrderedLock) int { return lockgraph.ComparePositions(a.Pos, b.Pos) })
	all = slices.CompactFunc(all, func(a, b lockseq.OrderedLock) bool { return a.Pos == b.Pos && a.Table == b.Table })
	if deferred {
		return an.Ordered
	}
	own := map[token.Position]token.Pos{}
	for _, o := range an.Ordered {
		own[o.Pos] = o.At
	}
	for _, m := range OrderMismatches(all) {
		pos, ok := own[m.This.Pos]
		if !ok {
			continue
		}
		emit(pass, analysis.Diagnostic{Pos: pos, Category: report.CategoryOrderMismatch, Message: report.MismatchMessage(m.This, m.Other, report.Options{Rel: moduleRelative}),
			Related: related(pass, report.MismatchRelated(m.This, m.Other))})
	}
	return witnesses(all)
}

// withoutSites returns the ordered locks for a fact: without their
// positions in this package's file set (At), which mean nothing elsewhere
// and would make the fact differ from run to run with the order files were
// parsed in.
func withoutSites(ordered []lockseq.OrderedLock) []lockseq.OrderedLock {
	out := slices.Clone(ordered)
	for i := range out {
		out[i].At = token.NoPos
	}
	return out
}

// foldRows groups the unordered-row findings that are one statement reached
// through a helper from several transactions (a DBTX method called by each
// repository function that begins one): one mistake, fixed once in the
// statement, is one report, at the first of its callers. Other findings
// stay one per group.
func foldRows(rows []lockseq.RowFinding) [][]lockseq.RowFinding {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b lockseq.RowFinding) int { return int(a.Pos - b.Pos) })
	var out [][]lockseq.RowFinding
	at := map[string]int{}
	for _, f := range rows {
		if f.Rule != lockseq.UnorderedRows || len(f.Path) < 2 {
			out = append(out, []lockseq.RowFinding{f})
			continue
		}
		site := f.Path[len(f.Path)-1].Pos
		k := f.Lock.Class.String() + "\x00" + site.String()
		if i, ok := at[k]; ok {
			out[i] = append(out[i], f)
			continue
		}
		at[k] = len(out)
		out = append(out, []lockseq.RowFinding{f})
	}
	return out
}

// compatibleOrders reports whether two ORDER BY lists lock rows in one
// order: equal, or one a prefix of the other (ORDER BY task_id against
// ORDER BY task_id, retry_count agree wherever the first decides).
func compatibleOrders(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a+", ")
}

// isMigrationPackage reports whether a package holds schema migrations
// (an element of its path is migrate, migration or migrations, as in
// db/migrations or internal/migrate): code that a migration tool runs one
// step at a time, never twice at once.
func isMigrationPackage(path string) bool {
	for elem := range strings.SplitSeq(path, "/") {
		switch strings.ToLower(elem) {
		case "migrate", "migration", "migrations", "migrator":
			return true
		}
	}
	return false
}

// witnesses keeps one ordered lock per table, order and mode: all a
// mismatch needs, so the package fact stays bounded however many packages
// it gathers.
func witnesses(all []lockseq.OrderedLock) []lockseq.OrderedLock {
	seen := map[string]bool{}
	var kept []lockseq.OrderedLock
	for _, o := range all {
		k := o.Table + "\x00" + o.Order + "\x00" + o.Mode.String()
		if !seen[k] {
			seen[k] = true
			kept = append(kept, o)
		}
	}
	return kept
}

// MigrationsOnly reports whether every path of a cycle is in a migration
// package: a migration tool runs one step at a time, so two of them (or one
// twice, for a lock upgrade) never run at once. A cycle between a migration
// and the application is kept: migrations do run beside live traffic.
func MigrationsOnly(c *lockgraph.Cycle) bool {
	for _, s := range c.Steps {
		if !isMigrationPackage(strings.TrimSuffix(s.Pkg, ".test")) {
			return false
		}
	}
	return len(c.Steps) > 0
}
