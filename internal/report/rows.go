package report

import (
	"fmt"
	"strings"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// Categories of the row-order rules: the rows of one table locked in
// different orders by two executions.
const (
	CategoryUnorderedRows = category.UnorderedRowLock
	CategoryOrderMismatch = category.RowOrderMismatch
	CategoryLoopOrder     = category.LoopLockOrder
	CategoryCallerOrder   = category.CallerRowOrder
)

// RowCategory returns the category of a row-order finding.
func RowCategory(f lockseq.RowFinding) string {
	switch f.Rule {
	case lockseq.LoopOrder:
		return CategoryLoopOrder
	case lockseq.CallerOrder:
		return CategoryCallerOrder
	}
	return CategoryUnorderedRows
}

// deadlockClause is the consequence shared by the row-order messages.
const deadlockClause = "PostgreSQL aborts one with 40P01 after deadlock_timeout"

// RowMessage renders a finding of the unordered-row-lock, loop-lock-order
// or caller-row-order rule.
func RowMessage(f lockseq.RowFinding, o Options) string {
	var b strings.Builder
	table := f.Lock.Class.Short()
	advisory := !f.Lock.Class.IsRow()
	what := "rows of " + table
	if advisory {
		what = "advisory locks"
	}
	switch f.Rule {
	case lockseq.UnorderedRows:
		if advisory {
			fmt.Fprintf(&b, "unordered multi-row lock: %s is called once per row (%s) with no ORDER BY, so the keys are locked in no defined order; two transactions that lock overlapping keys in different orders deadlock (%s)",
				verbOf(f.Path), f.Rows.Why, deadlockClause)
			writeFramesIn(&b, "takes", f.Path, o)
			b.WriteString("\n  fix: " + unorderedFix(f, table))
			break
		}
		fmt.Fprintf(&b, "unordered multi-row lock: %s takes %s, several of them (%s) in no defined order; two transactions that lock overlapping %s in different orders deadlock (%s)",
			verbOf(f.Path), lockName(f.Lock), f.Rows.Why, what, deadlockClause)
		writeFramesIn(&b, "takes", f.Path, o)
		b.WriteString("\n  fix: " + unorderedFix(f, table))
	case lockseq.LoopOrder:
		verb := "is"
		if !advisory {
			verb = "are"
		}
		fmt.Fprintf(&b, "lock order set by a loop: %s %s taken once per iteration of a loop over %s, in one transaction; two transactions that take overlapping %s in different orders deadlock (%s)",
			lockName(f.Lock), verb, f.Loop, what, deadlockClause)
		writeFramesIn(&b, "takes", f.Path, o)
		b.WriteString("\n  fix: sort the keys before the loop (slices.Sort(keys)) so every transaction locks them in one order")
		if !advisory {
			fmt.Fprintf(&b, ", or lock them all in one statement first: SELECT ... FROM %s WHERE id = ANY($1) ORDER BY id FOR UPDATE", table)
		}
	case lockseq.CallerOrder:
		if advisory {
			fmt.Fprintf(&b, "row order chosen by the caller: %s takes two advisory locks, first the one keyed by %s, then the one keyed by %s; two concurrent calls with the two swapped deadlock (%s)",
				f.Func, f.Keys[0], f.Keys[1], deadlockClause)
			writeFramesIn(&b, "first", f.First, o)
			writeFramesIn(&b, "then waits", f.Path, o)
			fmt.Fprintf(&b, "\n  fix: take the two locks in key order whatever the caller passes (min(%s, %s) first, then max)", f.Keys[0], f.Keys[1])
			break
		}
		if f.Read[0] || f.Read[1] {
			// One key is the caller's, the other one the function
			// read from the database (lockseq/readkeys.go).
			fmt.Fprintf(&b, "row order chosen by the caller and the data: %s locks two rows of %s, first the one keyed by %s, then the one keyed by %s; two concurrent calls, each given the key the other read, deadlock (%s)",
				f.Func, table, readName(f, 0), readName(f, 1), deadlockClause)
		} else {
			fmt.Fprintf(&b, "row order chosen by the caller: %s locks two rows of %s, first the one keyed by %s, then the one keyed by %s; two concurrent calls with the two swapped deadlock (%s)",
				f.Func, table, f.Keys[0], f.Keys[1], deadlockClause)
		}
		writeFramesIn(&b, "first", f.First, o)
		writeFramesIn(&b, "then waits", f.Path, o)
		fmt.Fprintf(&b, "\n  fix: lock the two rows in key order whatever the caller passes (min(%s, %s) first, then max), or both in one statement: SELECT ... FROM %s WHERE id IN ($1, $2) ORDER BY id FOR UPDATE",
			f.Keys[0], f.Keys[1], table)
	}
	return b.String()
}

// readName names key i of a caller-row-order finding, saying when the
// function read it from the database.
func readName(f lockseq.RowFinding, i int) string {
	if f.Read[i] {
		return f.Keys[i] + " (read from the database)"
	}
	return f.Keys[i]
}

// lockName names a lock with its mode: "rows of accounts (FOR UPDATE)".
func lockName(l lockgraph.Lock) string {
	if l.Class.IsRow() {
		return l.String()
	}
	return "an advisory lock (" + l.Mode.String() + ")"
}

// verbOf returns the statement's verb from the last frame of a path
// ("SELECT ... FOR UPDATE in a transaction" gives "SELECT ... FOR UPDATE").
func verbOf(path []lockgraph.Frame) string {
	if len(path) == 0 {
		return "the statement"
	}
	what := path[len(path)-1].What
	for _, sep := range []string{" in ", " on ", " run by "} {
		if i := strings.Index(what, sep); i > 0 {
			what = what[:i]
		}
	}
	return what
}

// unorderedFix shows the ordered form of an unordered multi-row lock.
func unorderedFix(f lockseq.RowFinding, table string) string {
	verb := verbOf(f.Path)
	switch {
	case !f.Lock.Class.IsRow():
		return "add ORDER BY so the keys are locked in one order: SELECT pg_advisory_xact_lock(id) FROM ... ORDER BY id"
	case strings.HasPrefix(verb, "SELECT"):
		return fmt.Sprintf("lock the rows in one order: SELECT ... FROM %s WHERE ... ORDER BY id %s", table, strings.TrimPrefix(verb, "SELECT ... "))
	case strings.HasPrefix(verb, "INSERT"):
		return "sort the rows by the conflict key before the INSERT ... ON CONFLICT DO UPDATE (or feed it from a SELECT ... ORDER BY key)"
	}
	return fmt.Sprintf("lock the rows in one order before the %s: WITH locked AS (SELECT id FROM %s WHERE ... ORDER BY id FOR UPDATE) %s ... WHERE id IN (SELECT id FROM locked)",
		verb, table, verb)
}

// MismatchMessage renders a finding of the row-order-mismatch rule: this
// statement and other lock rows of one table in different ORDER BYs.
func MismatchMessage(this, other lockseq.OrderedLock, o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "row order mismatch on %s: %s locks its rows ORDER BY %s, %s locks them ORDER BY %s; two transactions that lock overlapping rows in the two orders deadlock (%s)",
		this.Table, this.Func, this.Order, other.Func, other.Order, deadlockClause)
	fmt.Fprintf(&b, "\n    this:       %s: %s", o.pos(this.Pos), this.What)
	fmt.Fprintf(&b, "\n    other:      %s: %s (in %s)", o.pos(other.Pos), other.What, other.Func)
	fmt.Fprintf(&b, "\n  fix: lock the rows of %s in one order everywhere (the same ORDER BY keys and directions, ending in a unique key such as id)", this.Table)
	return b.String()
}

// writeFramesIn writes a path naming the function of every frame, the
// first one included: a row-order finding has one path, and the function
// that runs the statement (a sqlc method in generated code, a closure) is
// what the reader looks for.
func writeFramesIn(b *strings.Builder, verb string, frames []lockgraph.Frame, o Options) {
	writePath(b, verb, frames, o, true)
}

// RowRelated lists the steps of a row-order finding's path (and, for
// caller-row-order, the first lock's path).
func RowRelated(f lockseq.RowFinding) []Related {
	var out []Related
	if len(f.First) > 0 {
		out = appendFrames(out, "first", f.First)
		return appendFrames(out, "then waits", f.Path)
	}
	return appendFrames(out, "takes", f.Path)
}

// MismatchRelated lists the two statements of a row-order mismatch.
func MismatchRelated(this, other lockseq.OrderedLock) []Related {
	return []Related{
		{Pos: this.Pos, Message: fmt.Sprintf("%s locks rows of %s ORDER BY %s: %s", this.Func, this.Table, this.Order, this.What)},
		{Pos: other.Pos, Message: fmt.Sprintf("%s locks rows of %s ORDER BY %s: %s", other.Func, other.Table, other.Order, other.What)},
	}
}
