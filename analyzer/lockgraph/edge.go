// Package lockgraph holds the lock-order graph: lock classes as nodes and
// "held while waiting for" edges, each with the code path that witnesses it,
// and finds the cycles among them that can really deadlock in PostgreSQL.
package lockgraph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/analyzer/lockmodel"
)

// Frame is one step of a code path: a lock request, or a call that leads to
// one. Positions are kept as text because token.Pos means nothing outside the
// FileSet of one analysis pass.
type Frame struct {
	// Func is the function the step is in, as pkg.Func or pkg.Type.Method.
	Func string
	// Pos is the step's position, "file:line:column".
	Pos string
	// What says what happens there ("SELECT ... FOR UPDATE on tx",
	// "calls store.LockUsage").
	What string
	// SQL is the query text sent at a lock request (the innermost frame
	// of a path), as the application sends it, with its $n placeholders;
	// empty for calls. Reproducers replay it.
	SQL string
}

// Lock is one end of an edge: a lock class and how it is taken.
type Lock struct {
	// Class names the lockable object: "row:T", "table:T", "advisory:KEY"
	// or, for an advisory key unknown before run time,
	// "advisory@file:line" (its own class: never equal to another site's).
	Class string
	Mode  lockmodel.Mode
	// Waits is false for NOWAIT, SKIP LOCKED and pg_try_* requests.
	Waits bool
	// Session marks a session-level advisory lock, which survives
	// ROLLBACK and the deadlock error.
	Session bool
}

// String describes the lock for people: "rows of subscriptions (FOR UPDATE)".
func (l Lock) String() string {
	return fmt.Sprintf("%s (%s)", ClassName(l.Class), l.modeName())
}

func (l Lock) modeName() string {
	switch l.Mode {
	case lockmodel.AdvisoryExclusive, lockmodel.AdvisoryShared:
		scope := "transaction"
		if l.Session {
			scope = "session"
		}
		return scope + ", " + l.Mode.String()
	}
	return l.Mode.String()
}

// ClassName turns a class key into words: "rows of subscriptions", "table
// subscriptions", "advisory lock (42)".
func ClassName(class string) string {
	switch {
	case strings.HasPrefix(class, "row:"):
		return "rows of " + class[len("row:"):]
	case strings.HasPrefix(class, "table:"):
		return "table " + class[len("table:"):]
	case strings.HasPrefix(class, "advisory:"):
		return "advisory lock " + class[len("advisory:"):]
	case strings.HasPrefix(class, "advisory@"):
		return "advisory lock taken at " + class[len("advisory@"):]
	}
	return class
}

// ShortName is the name of the locked object alone: "subscriptions",
// "advisory lock (42)", used in fix suggestions.
func ShortName(class string) string {
	switch {
	case strings.HasPrefix(class, "row:"):
		return class[len("row:"):]
	case strings.HasPrefix(class, "table:"):
		return "table " + class[len("table:"):]
	}
	return ClassName(class)
}

// Edge says: on some code path, Held is held while Wanted is requested.
type Edge struct {
	Held, Wanted Lock
	// Func is the function in which both ends are known, where the path
	// starts.
	Func string
	// Pkg is the path of Func's package.
	Pkg string
	// HeldPath and WantedPath lead from Func to each request.
	HeldPath, WantedPath []Frame
	// CrossConn is set when Wanted is requested on another connection
	// than the one holding Held: PostgreSQL cannot see such a wait.
	CrossConn bool
	// Gates are locks the path surely holds from before Held until
	// Wanted is requested (see Cycle search: a gate that every path of a
	// cycle takes, in modes that conflict, serialises them).
	Gates []Lock
}

// key identifies an edge for de-duplication: one witness per function,
// classes, modes and kind of wait.
func (e *Edge) key() string {
	return fmt.Sprintf("%s|%s|%d|%t|%t|%s|%d|%t|%t|%t|%v", e.Func, e.Held.Class, e.Held.Mode, e.Held.Waits, e.Held.Session,
		e.Wanted.Class, e.Wanted.Mode, e.Wanted.Waits, e.Wanted.Session, e.CrossConn, e.Gates)
}

// Anchor is the position a report about this edge points at: where the
// second lock is requested, in Func.
func (e *Edge) Anchor() string {
	if len(e.WantedPath) > 0 {
		return e.WantedPath[0].Pos
	}
	return ""
}

// Compare orders edges deterministically.
func Compare(a, b *Edge) int {
	if c := cmp.Or(
		cmp.Compare(a.Held.Class, b.Held.Class),
		cmp.Compare(a.Wanted.Class, b.Wanted.Class),
		cmp.Compare(a.Func, b.Func),
		cmp.Compare(a.Anchor(), b.Anchor()),
	); c != 0 {
		return c
	}
	// Formatting the key costs more than the rest: only for ties (cmp.Or
	// evaluates all its arguments).
	return cmp.Compare(a.key(), b.key())
}

// Dedupe sorts edges and keeps one per key (the first in order).
func Dedupe(edges []*Edge) []*Edge {
	slices.SortStableFunc(edges, Compare)
	seen := make(map[string]bool, len(edges))
	out := edges[:0]
	for _, e := range edges {
		k := e.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// Conflicts reports whether a request for want can block on a holder of
// held: same object, the request waits, and the modes conflict.
func Conflicts(held, want Lock) bool {
	return held.Class == want.Class && want.Waits && lockmodel.ModesConflict(held.Mode, want.Mode)
}

// Covers reports whether holding mode a already grants a request for mode b
// by the same transaction: both lock the same kind of object and a blocks
// every request that b blocks. (A transaction never waits for its own
// locks, but a request for a mode its held one does not cover, such as ROW
// EXCLUSIVE after SHARE on a table, still waits for other holders.)
func Covers(a, b lockmodel.Mode) bool {
	if a.Kind() == 0 || a.Kind() != b.Kind() {
		return false
	}
	for r := lockmodel.Mode(1); r < 64; r++ {
		if r.Kind() == a.Kind() && lockmodel.ModesConflict(b, r) && !lockmodel.ModesConflict(a, r) {
			return false
		}
	}
	return true
}

// Upgrade reports whether holding held and then requesting want on the same
// object deadlocks when two transactions do it at once: both get held,
// which does not conflict with itself, and then each waits for the other's
// held to grant want (FOR SHARE then FOR UPDATE; LOCK TABLE ... IN SHARE
// MODE then UPDATE).
func Upgrade(held, want Lock) bool {
	return Conflicts(held, want) && !lockmodel.ModesConflict(held.Mode, held.Mode)
}

// IsUpgrade reports whether the edge is a lock upgrade on one object in one
// transaction (see Upgrade).
func (e *Edge) IsUpgrade() bool {
	return !e.CrossConn && e.Held.Class == e.Wanted.Class && Upgrade(e.Held, e.Wanted)
}

// WithoutTables drops the edges with an end on one of the given tables (row
// or table locks). Temporary tables are private to a session: locks on them
// never make another session wait, whatever their order.
func WithoutTables(edges []*Edge, tables map[string]bool) []*Edge {
	if len(tables) == 0 {
		return edges
	}
	onTable := func(class string) bool {
		for _, prefix := range []string{"row:", "table:"} {
			if name, ok := strings.CutPrefix(class, prefix); ok && tables[name] {
				return true
			}
		}
		return false
	}
	out := make([]*Edge, 0, len(edges))
	for _, e := range edges {
		if !onTable(e.Held.Class) && !onTable(e.Wanted.Class) {
			out = append(out, e)
		}
	}
	return out
}
