// Package findings is pglockorder's reporting policy, written once. It turns
// what the analysis found (cycles of the lock-order graph, row-order
// findings, session advisory locks on pools, mismatched row orders) into
// findings, matches them against //pglockorder:ignore directives, and drops
// the categories turned off. Every driver calls it with what it sees: the
// analyzer's reporter with one package and its imports (go vet,
// golangci-lint), the whole-program command with every package at once, so
// a rule, a suppression or a disabled category behaves the same in each.
//
// A finding's positions are token.Position values, valid in any process: a
// per-package driver turns them into the token.Pos of its own FileSet.
package findings

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
)

// Finding is one report: where, of which category, the message with the
// whole evidence, and each path's steps as related positions.
type Finding struct {
	// Pkg is the import path of the package the finding is in.
	Pkg      string
	Pos      token.Position
	Category string
	Message  string
	Related  []report.Related
	// Cycle is the cycle the finding reports, when it is one (for the
	// reproducers and the baseline); nil otherwise.
	Cycle *lockgraph.Cycle `json:"-"`
	// Lent names a row finding in a function that runs the statement on
	// a transaction its callers lend it (lockseq.RowFinding.Lent): a
	// driver that sees the whole program withdraws it where a call in
	// another package judged the statement again (WithdrawLent).
	Lent string `json:"-"`
	// Statement names the statement of an unordered-row finding (its
	// lock's class and position), and Funcs the transactions it is
	// reported for, the finding's own first: a driver that sees the
	// whole program folds the findings of one statement made in several
	// packages into one (FoldStatements).
	Statement string   `json:"-"`
	Funcs     []string `json:"-"`
}

// Options say how findings are rendered and which ones a driver reports.
type Options struct {
	// Rel shortens the file names in messages (report.Options.Rel).
	Rel func(filename string) string
	// Here selects the cycle steps and ordered locks a driver reports
	// at: a per-package driver reports a finding only where one of its
	// paths is in its package. Nil reports every finding at its anchor.
	Here func(step *lockgraph.Edge) bool
	// HereOrdered is Here for the row-order-mismatch rule's sites.
	HereOrdered func(o lockseq.OrderedLock) bool
}

func (o Options) report() report.Options { return report.Options{Rel: o.Rel} }

// Cycles returns the findings of the cycles: one per cycle, at its anchor
// (the step that breaks the majority order, see lockgraph.Cycle.Anchor),
// or, when Here leaves that step out, at the first step Here keeps. A cycle
// all of whose paths are migrations is no finding (MigrationsOnly), nor one
// between the tests of different test binaries (SeparateTestBinaries).
func Cycles(cycles []*lockgraph.Cycle, o Options) []Finding {
	var out []Finding
	for _, c := range cycles {
		if len(c.Steps) == 0 || MigrationsOnly(c) || SeparateTestBinaries(c) {
			continue
		}
		at := c.Anchor()
		if o.Here != nil && !o.Here(at) {
			i := slices.IndexFunc(c.Steps, o.Here)
			if i < 0 {
				continue // reported where one of its paths is
			}
			at = c.Steps[i]
		}
		out = append(out, Finding{
			Pkg:      at.Pkg,
			Pos:      at.Anchor(),
			Category: report.Category(c),
			Message:  report.Message(c, o.report()),
			Related:  report.CycleRelated(c),
			Cycle:    c,
		})
	}
	return out
}

// Mismatches returns the findings of the row-order-mismatch rule over the
// ordered locks: pairs of blocking locks of several rows of one table taken
// in two different orders (see OrderMismatches), each at the later site.
func Mismatches(ordered []lockseq.OrderedLock, o Options) []Finding {
	var out []Finding
	for _, m := range OrderMismatches(ordered) {
		if o.HereOrdered != nil && !o.HereOrdered(m.This) {
			continue
		}
		out = append(out, Finding{
			Pkg:      m.This.Pkg,
			Pos:      m.This.Pos,
			Category: report.CategoryOrderMismatch,
			Message:  report.MismatchMessage(m.This, m.Other, o.report()),
			Related:  report.MismatchRelated(m.This, m.Other),
		})
	}
	return out
}

// Rows returns the findings of the row-order rules of one package (pkg,
// whose positions fset resolves). The unordered-row findings that are one
// statement reached through a helper from several transactions are one
// finding (see foldRows); a migration package reports none: a migration
// tool runs one step at a time, so no second execution of the same code
// runs beside it.
func Rows(rows []lockseq.RowFinding, fset *token.FileSet, pkg string, o Options) []Finding {
	if MigrationPackage(pkg) {
		return nil
	}
	var out []Finding
	for _, g := range foldRows(rows) {
		f := g[0]
		funcs := make([]string, 0, len(g))
		for _, other := range g {
			funcs = append(funcs, other.Func)
		}
		fi := Finding{Pkg: pkg, Pos: fset.Position(f.Pos), Category: report.RowCategory(f),
			Message: report.RowMessage(f, o.report()) + alsoLine(funcs[1:]), Related: report.RowRelated(f)}
		if k := statementKey(f); k != "" {
			fi.Statement, fi.Funcs = k, funcs
		}
		if !slices.ContainsFunc(g, func(f lockseq.RowFinding) bool { return !f.Lent || f.LentKey() != g[0].LentKey() }) {
			fi.Lent = f.LentKey()
		}
		out = append(out, fi)
	}
	return out
}

// WithdrawLent drops the lent row findings (Finding.Lent) that the calls of
// the program judged again (judged[key] is true, keyed as
// lockseq.LentKey): there the statement was reported, or found gated,
// ordered or held already, with what the lending transaction holds. A
// false verdict (a call that leaves the finding standing) keeps it.
func WithdrawLent(fs []Finding, judged map[string]bool) []Finding {
	if len(judged) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return f.Lent != "" && judged[f.Lent] })
}

// Leaks returns the findings of the session advisory locks of one package
// that a pool may hand to another request: taken on a pool, or still held
// where their connection goes back to it.
func Leaks(leaks []lockseq.Leak, fset *token.FileSet, pkg string, o Options) []Finding {
	out := make([]Finding, 0, len(leaks))
	for _, l := range leaks {
		f := Finding{Pkg: pkg, Pos: fset.Position(l.Pos), Related: report.PathRelated("takes "+l.Lock.String(), l.Path)}
		if l.Returned {
			var taken token.Position
			if len(l.Path) > 0 {
				taken = l.Path[len(l.Path)-1].Pos
			}
			// A release a called function makes: reported at the
			// release where it is in this function's body (a
			// deferred closure), else at the call, naming it.
			var released lockgraph.Frame
			if l.At.IsValid() {
				f.Pos = l.At
			} else if len(l.Release) > 0 {
				released = l.Release[len(l.Release)-1]
				f.Related = append(f.Related, report.Related{Pos: released.Pos,
					Message: fmt.Sprintf("gives the connection back: %s (in %s)", released.What, released.Func)})
			}
			f.Category, f.Message = report.CategoryLeak, report.ReturnedMessage(l.Lock, taken, released, o.report())
		} else {
			f.Category, f.Message = report.CategoryPoolAdvisor, report.LeakMessage(l.Lock)
		}
		out = append(out, f)
	}
	return out
}

// Mismatch is a pair of blocking locks of several rows of one table in two
// different orders: This is where it is reported, Other the other site.
type Mismatch struct {
	This, Other lockseq.OrderedLock
}

// OrderMismatches finds the pairs of ordered row locks that order one table
// differently and conflict. Each pair is reported once, at the later of its
// two positions, and each site at most once. A test's statement is never
// set against production's.
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

// compatibleOrders reports whether two ORDER BY lists lock rows in one
// order: equal, or one a prefix of the other (ORDER BY task_id against
// ORDER BY task_id, retry_count agree wherever the first decides).
func compatibleOrders(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a+", ")
}

// foldRows groups the unordered-row findings that are one statement reached
// through a helper from several transactions (a DBTX method called by each
// repository function that begins one): one mistake, fixed once in the
// statement, is one report, at the first of its callers. Other findings
// stay one per group.
func foldRows(rows []lockseq.RowFinding) [][]lockseq.RowFinding {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b lockseq.RowFinding) int { return cmp.Compare(a.Pos, b.Pos) })
	var out [][]lockseq.RowFinding
	at := map[string]int{}
	for _, f := range rows {
		if f.Rule != lockseq.UnorderedRows || len(f.Path) < 2 {
			out = append(out, []lockseq.RowFinding{f})
			continue
		}
		k := statementKey(f)
		if i, ok := at[k]; ok {
			out[i] = append(out[i], f)
			continue
		}
		at[k] = len(out)
		out = append(out, []lockseq.RowFinding{f})
	}
	return out
}

// statementKey names the statement of an unordered-row finding reached
// through a helper (its lock's class and position), "" for another.
func statementKey(f lockseq.RowFinding) string {
	if f.Rule != lockseq.UnorderedRows || len(f.Path) < 2 {
		return ""
	}
	return f.Lock.Class.String() + "\x00" + f.Path[len(f.Path)-1].Pos.String()
}

// alsoLine is the line of a row finding that names the other transactions
// the statement is reported for, "" when there are none.
func alsoLine(others []string) string {
	if len(others) == 0 {
		return ""
	}
	return "\n  also: the same statement in the transactions of " + strings.Join(others, ", ") + " (one fix, in the statement)"
}

// FoldStatements folds the unordered-row findings of one statement made in
// several packages (Finding.Statement; each package folds its own, see
// Rows) into the first of them by position, which names every other
// transaction: one statement, one fix, one report. Other findings are
// kept as they are, in their order.
func FoldStatements(fs []Finding) []Finding {
	lead := map[string]int{}
	for i, f := range fs {
		if f.Statement == "" {
			continue
		}
		j, ok := lead[f.Statement]
		if !ok || comparePositions(f.Pos, fs[j].Pos) < 0 {
			lead[f.Statement] = i
		}
	}
	var out []Finding
	for i, f := range fs {
		if f.Statement == "" {
			out = append(out, f)
			continue
		}
		if lead[f.Statement] != i {
			continue
		}
		funcs := slices.Clone(f.Funcs)
		for _, other := range fs {
			if other.Statement == f.Statement && other.Pos != f.Pos {
				for _, fn := range other.Funcs {
					if !slices.Contains(funcs, fn) {
						funcs = append(funcs, fn)
					}
				}
			}
		}
		if len(funcs) > len(f.Funcs) {
			f.Message = strings.TrimSuffix(f.Message, alsoLine(f.Funcs[1:])) + alsoLine(funcs[1:])
			f.Funcs = funcs
		}
		out = append(out, f)
	}
	return out
}

// comparePositions orders positions by file, line and column.
func comparePositions(a, b token.Position) int {
	return cmp.Or(cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
}

// MigrationPackage reports whether a package holds schema migrations (an
// element of its path is migrate, migration, migrations or migrator, as in
// db/migrations or internal/migrate): code that a migration tool runs one
// step at a time, never twice at once.
func MigrationPackage(path string) bool {
	for elem := range strings.SplitSeq(strings.TrimSuffix(path, ".test"), "/") {
		switch strings.ToLower(elem) {
		case "migrate", "migration", "migrations", "migrator":
			return true
		}
	}
	return false
}

// MigrationsOnly reports whether every path of a cycle is in a migration
// package: a migration tool runs one step at a time, so two of them (or one
// twice, for a lock upgrade) never run at once. A cycle between a migration
// and the application is kept: migrations do run beside live traffic.
func MigrationsOnly(c *lockgraph.Cycle) bool {
	for _, s := range c.Steps {
		if !MigrationPackage(s.Pkg) {
			return false
		}
	}
	return len(c.Steps) > 0
}

// SeparateTestBinaries reports whether every path of a cycle is test code
// and two of them are the tests of different packages. go test runs each
// package's tests in a process of its own, and Go's database tests give a
// test binary (or each test) a database of its own (pgtestdb,
// testcontainers, a schema per package), so such paths do not meet on the
// same rows; the tests of one package, which share their binary's
// database, are still set against each other. A path in a test helper
// package (not a _test.go file) runs in whichever binary imports it.
func SeparateTestBinaries(c *lockgraph.Cycle) bool {
	binaries := map[string]bool{}
	for _, s := range c.Steps {
		if !s.InTest() {
			return false
		}
		if strings.HasSuffix(s.HeldPath[0].Pos.Filename, "_test.go") {
			binaries[strings.TrimSuffix(strings.TrimSuffix(s.Pkg, ".test"), "_test")] = true
		}
	}
	return len(binaries) > 1
}

// Settings are the policy's switches, from the analyzer's flags.
type Settings struct {
	// MaxCycle is the longest cycle of locks searched (-maxcycle).
	MaxCycle int
	// Disable lists the categories not to report (-disable).
	Disable []string
}

// ParseDisable splits a -disable value: comma-separated category names.
func ParseDisable(s string) []string {
	var out []string
	for c := range strings.SplitSeq(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// Check reports a setting no run can honour: a cycle length out of range,
// or a category to disable that does not exist (a typo would silently
// disable nothing).
func (s Settings) Check() error {
	if s.MaxCycle < 2 || s.MaxCycle > 12 {
		return fmt.Errorf("maxcycle must be between 2 and 12, not %d", s.MaxCycle)
	}
	for _, c := range s.Disable {
		if _, ok := category.Lookup(c); !ok {
			return fmt.Errorf("disable: unknown category %q (known: %s)", c, strings.Join(category.IDs(), ", "))
		}
	}
	return nil
}

// Disabled reports whether findings of a category are turned off.
func (s Settings) Disabled(cat string) bool {
	return slices.Contains(s.Disable, cat)
}

// Enabled drops the findings of the categories turned off. Drivers call it
// after Suppress, so that a directive covering a disabled finding is not
// reported as suppressing nothing.
func (s Settings) Enabled(fs []Finding) []Finding {
	if len(s.Disable) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return s.Disabled(f.Category) })
}
