// Package report turns lock-order cycles into messages a developer can act
// on: both (or all) code paths with file:line of each acquisition and the
// call chain to it, why the cycle deadlocks or hangs, and the fix.
//
// The whole evidence is written into the message text, not only into
// related locations: golangci-lint and GitHub annotations keep one position
// per finding and drop the rest.
package report

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// Category names of the findings, one per rule family (see the category
// package, the catalogue they are described in).
const (
	CategoryInversion   = category.LockOrder
	CategorySession     = category.SessionCycle
	CategoryCrossConn   = category.CrossConnection
	CategoryPoolAdvisor = category.SessionOnPool
	CategoryLeak        = category.SessionLeak
)

// Options control how positions are shown.
type Options struct {
	// Rel shortens a file name for display, for example by making it
	// relative to the working directory; nil keeps names as they are.
	Rel func(filename string) string
}

// pos renders a position as "file:line:col", its file name shortened.
func (o Options) pos(p token.Position) string {
	if o.Rel != nil && p.IsValid() {
		p.Filename = o.Rel(p.Filename)
	}
	return p.String()
}

// Category returns the category of a cycle's finding.
func Category(c *lockgraph.Cycle) string {
	switch c.Severity {
	case lockgraph.CrossConnection:
		return CategoryCrossConn
	case lockgraph.SessionAdvisory:
		return CategorySession
	}
	return CategoryInversion
}

// Message renders the full message for a cycle.
func Message(c *lockgraph.Cycle, o Options) string {
	var b strings.Builder
	b.WriteString(headline(c))
	for i, s := range c.Steps {
		fmt.Fprintf(&b, "\n  path %d: %s holds %s while waiting for %s", i+1, s.Func, s.Held, s.Wanted)
		if s.CrossConn {
			b.WriteString(" on another connection")
		}
		if i == c.Breaker && c.MissingGate != nil {
			fmt.Fprintf(&b, " without first taking %s, which the other %s", c.MissingGate.Class.Describe(),
				plural(len(c.Steps)-1, "path takes", "paths take"))
		} else if i == c.Breaker && len(c.Steps) > 1 {
			others := c.Followers
			fmt.Fprintf(&b, " (this path breaks the order that %d other %s)", others, plural(others, "path follows", "paths follow"))
		}
		for _, g := range c.Guards {
			if g.Step == i {
				fmt.Fprintf(&b, "\n    while %s holds %s, taken on a pooled connection:", g.Func, g.Lock)
				writeFrames(&b, "locked", g.Path, o)
			}
		}
		writeFrames(&b, "takes", s.HeldPath, o)
		writeFrames(&b, "then waits", s.WantedPath, o)
	}
	if others := hiddenFollowers(c); len(others) > 0 {
		fmt.Fprintf(&b, "\n  also in that order: %s", nameList(others, maxNames))
	}
	if others := hiddenBreakers(c); len(others) > 0 {
		fmt.Fprintf(&b, "\n  also against that order: %s", nameList(others, maxNames))
	}
	b.WriteString("\n  fix: ")
	b.WriteString(fix(c))
	if len(c.Also) > 0 {
		also := make([]string, len(c.Also))
		for i, classes := range c.Also {
			names := make([]string, len(classes))
			for j, class := range classes {
				names[j] = class.Describe()
			}
			also[i] = strings.Join(names, " -> ")
		}
		b.WriteString("\n  also: these cycles share its functions or this request and are not reported separately: ")
		b.WriteString(strings.Join(also, "; "))
		if more := c.Folded - len(c.Also); more > 0 {
			fmt.Fprintf(&b, " (and %d more)", more)
		}
	}
	return b.String()
}

// maxNames bounds the functions one line of a message lists.
const maxNames = 8

// hiddenFollowers returns the functions that keep the order a cycle's
// breaker breaks but are not among its paths: the other side of the one
// mistake, which the message counts and names.
func hiddenFollowers(c *lockgraph.Cycle) []string {
	if c.Breaker < 0 {
		return nil
	}
	var out []string
	for _, f := range c.FollowerFuncs {
		if !slices.ContainsFunc(c.Steps, func(s *lockgraph.Edge) bool { return s.Func == f }) {
			out = append(out, f)
		}
	}
	return out
}

// hiddenBreakers returns the other functions that go against the order
// the way the breaker does (lockgraph.Cycle.Breakers) and are not among the
// cycle's paths: each is to change too.
func hiddenBreakers(c *lockgraph.Cycle) []string {
	var out []string
	for _, f := range c.Breakers {
		if !slices.ContainsFunc(c.Steps, func(s *lockgraph.Edge) bool { return s.Func == f }) {
			out = append(out, f)
		}
	}
	return out
}

// nameList joins up to most names, counting the rest.
func nameList(names []string, most int) string {
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func writeFrames(b *strings.Builder, verb string, frames []lockgraph.Frame, o Options) {
	writePath(b, verb, frames, o, false)
}

// writePath writes a path's frames under a label, each but the first (or,
// with allFuncs, each) naming its function.
func writePath(b *strings.Builder, verb string, frames []lockgraph.Frame, o Options, allFuncs bool) {
	for i, f := range frames {
		label := strings.Repeat(" ", 16)
		if i == 0 {
			label = "    " + verb + ":"
			label += strings.Repeat(" ", max(0, 16-len(label)))
		}
		fmt.Fprintf(b, "\n%s%s: %s", label, o.pos(f.Pos), f.What)
		if i > 0 || allFuncs {
			fmt.Fprintf(b, " (in %s)", f.Func)
		}
	}
}

func headline(c *lockgraph.Cycle) string {
	if len(c.Steps) == 1 && c.Steps[0].IsUpgrade() {
		s := c.Steps[0]
		return fmt.Sprintf("lock-upgrade deadlock: %s holds %s and then requests %s on the same object; two "+
			"concurrent runs both get the first lock and then wait for each other (PostgreSQL aborts one with 40P01 "+
			"after deadlock_timeout)", s.Func, s.Held, s.Wanted)
	}
	if len(c.Steps) == 1 {
		s := c.Steps[0]
		return fmt.Sprintf("application self-deadlock: %s holds %s and then waits for %s on another connection; "+
			"PostgreSQL cannot see a wait that passes through the application, so if that statement touches what the "+
			"first connection locked it hangs forever (lock_timeout bounds it)", s.Func, s.Held, s.Wanted)
	}
	names := make([]string, len(c.Steps))
	for i, s := range c.Steps {
		names[i] = s.Held.Class.Describe()
	}
	var what string
	if len(names) == 2 {
		what = fmt.Sprintf("%s and %s are locked in opposite orders", names[0], names[1])
	} else {
		what = fmt.Sprintf("%s are locked in a cycle of %d paths", strings.Join(names, ", "), len(names))
	}
	switch c.Severity {
	case lockgraph.CrossConnection:
		return "application deadlock: " + what + ", and one path waits on a second connection while its first " +
			"holds a lock; PostgreSQL cannot see the wait through the application, so this hangs forever " +
			"instead of failing with 40P01 (lock_timeout bounds it)"
	case lockgraph.SessionAdvisory:
		if len(c.Guards) > 0 {
			g := c.Guards[0]
			return "lock-order inversion that hangs: " + what + "; PostgreSQL aborts one transaction with 40P01, but " +
				g.Func + " runs its path under a session-level advisory lock taken on a pooled connection, which " +
				"the abort does not release and whose unlock may run on another connection: the next " + g.Func +
				" for the same key waits for it forever"
		}
		return "lock-order inversion through a session-level advisory lock: " + what + "; PostgreSQL detects the " +
			"deadlock (40P01), but the session lock survives the error and the ROLLBACK, so the other path stays " +
			"blocked until the application unlocks or disconnects"
	}
	return "lock-order inversion: " + what + "; concurrent transactions can deadlock (PostgreSQL aborts one with " +
		"40P01 after deadlock_timeout)"
}

// fix says how to break the cycle: one global order, taken from the paths
// that agree when there is a majority.
func fix(c *lockgraph.Cycle) string {
	if len(c.Steps) == 1 && c.Steps[0].IsUpgrade() {
		s := c.Steps[0]
		return fmt.Sprintf("in %s, take %s the first time %s is locked (it covers both %s and %s)", s.Func,
			coveringMode(s.Held.Mode, s.Wanted.Mode), s.Held.Class.Short(), s.Held.Mode, s.Wanted.Mode)
	}
	if len(c.Steps) == 1 {
		s := c.Steps[0]
		return fmt.Sprintf("in %s, run the second statement on the same transaction or connection, or commit "+
			"before it", s.Func)
	}
	var parts []string
	if g := c.MissingGate; g != nil && c.Breaker >= 0 {
		parts = append(parts, fmt.Sprintf("in %s, take %s first, as the other %s (or take the locks in one order on every path)",
			c.Steps[c.Breaker].Func, g.Class.Describe(), plural(len(c.Steps)-1, "path does", "paths do")))
	} else if len(c.Steps) == 2 {
		// Order by the path that does not break it.
		good := 0
		if c.Breaker == 0 {
			good = 1
		}
		first, second := c.Steps[good].Held.Class.Short(), c.Steps[good].Wanted.Class.Short()
		msg := fmt.Sprintf("take %s before %s on every path", first, second)
		if c.Breaker >= 0 {
			msg += fmt.Sprintf(" (change %s to lock %s first)", c.Steps[c.Breaker].Func, first)
		} else {
			msg += " (or the other way round: any one order, kept by every path)"
		}
		parts = append(parts, msg)
	} else {
		order := make([]string, 0, len(c.Steps))
		start := 0
		if c.Breaker >= 0 {
			// The order of the other paths starts where the breaker
			// waits.
			start = (c.Breaker + 1) % len(c.Steps)
		}
		for i := range c.Steps {
			order = append(order, c.Steps[(start+i)%len(c.Steps)].Held.Class.Short())
		}
		msg := "take " + strings.Join(order, ", then ") + " in this one order on every path"
		if c.Breaker >= 0 {
			msg += fmt.Sprintf(" (%s breaks it)", c.Steps[c.Breaker].Func)
		}
		parts = append(parts, msg)
	}
	switch c.Severity {
	case lockgraph.SessionAdvisory:
		if len(c.Guards) > 0 {
			parts = append(parts, "take the advisory lock in the transaction with pg_advisory_xact_lock, or on a dedicated "+
				"connection (pool.Acquire, db.Conn) that unlocks it on every path")
			break
		}
		parts = append(parts, "use pg_advisory_xact_lock, which ends with the transaction, instead of pg_advisory_lock")
	case lockgraph.CrossConnection:
		parts = append(parts, "never wait on a second connection while the first holds locks (use the same "+
			"transaction, or commit first), and set lock_timeout so that a hang becomes an error")
	}
	return strings.Join(parts, "; ")
}

// coveringMode returns the weakest mode that grants both a and b, so that
// taking it first leaves nothing to upgrade: the stronger of the two when one
// covers the other (FOR UPDATE after FOR SHARE), else the weakest mode above
// both (SHARE ROW EXCLUSIVE for SHARE and ROW EXCLUSIVE).
func coveringMode(a, b lockmodel.Mode) lockmodel.Mode {
	switch {
	case lockgraph.Covers(b, a):
		return b
	case lockgraph.Covers(a, b):
		return a
	}
	// Modes of one kind are numbered weakest first.
	for m := min(a, b) + 1; m.Kind() == a.Kind(); m++ {
		if lockgraph.Covers(m, a) && lockgraph.Covers(m, b) {
			return m
		}
	}
	return max(a, b)
}

// LeakMessage is the message for a session advisory lock taken on a pool.
func LeakMessage(l lockgraph.Lock) string {
	return fmt.Sprintf("session-level %s is taken on a connection pool: the unlock may run on another pooled "+
		"connection, and the lock then stays with a connection nobody owns; take it on a dedicated connection "+
		"(pool.Acquire / db.Conn) and unlock it there, or use pg_advisory_xact_lock inside a transaction",
		l.Class.Describe())
}

// ReturnedMessage is the message for a session advisory lock that may still
// be held when its connection goes back to the pool. released is the
// release when a function called at the finding's position makes it (its
// zero value: the finding is at the release).
func ReturnedMessage(l lockgraph.Lock, takenAt token.Position, released lockgraph.Frame, o Options) string {
	// A lock whose key is known only at run time is named after the
	// place that takes it: said once, not as its class and again.
	lock := fmt.Sprintf("%s, taken at %s,", l.Class.Describe(), o.pos(takenAt))
	if l.Class.Kind == lockgraph.AdvisorySite {
		lock = "advisory lock taken at " + o.pos(takenAt)
	}
	where := "here"
	if released.Pos.IsValid() {
		where = fmt.Sprintf("at %s (in %s, called here)", o.pos(released.Pos), released.Func)
	}
	return fmt.Sprintf("session-level %s may still be held %s, where the connection goes back to "+
		"the pool: returning a connection does not end its session, so the lock stays with whoever gets the "+
		"connection next and is never unlocked; unlock it on every path (defer the unlock right after taking it), "+
		"or use pg_advisory_xact_lock inside a transaction", lock, where)
}

// Related is a position a finding refers to besides its own: one step of
// one of its paths. Drivers pass them on as related locations
// (analysis.Diagnostic.Related, SARIF relatedLocations), so that editors and
// code scanning can link every path without reading the message.
type Related struct {
	Pos     token.Position
	Message string
}

// CycleRelated lists the steps of every path of a cycle, in the order the
// message shows them.
func CycleRelated(c *lockgraph.Cycle) []Related {
	var out []Related
	for i, s := range c.Steps {
		out = append(out, EdgeRelated(s, fmt.Sprintf("path %d (%s)", i+1, s.Func))...)
	}
	return out
}

// EdgeRelated lists the steps of one edge's two paths under a label.
func EdgeRelated(e *lockgraph.Edge, label string) []Related {
	out := appendFrames(nil, label+" takes "+e.Held.String(), e.HeldPath)
	return appendFrames(out, label+" then waits for "+e.Wanted.String(), e.WantedPath)
}

// PathRelated lists the steps of one path under a label.
func PathRelated(label string, frames []lockgraph.Frame) []Related {
	return appendFrames(nil, label, frames)
}

// appendFrames appends one related position per frame: the first is the
// step itself, the others the calls that lead to it.
func appendFrames(out []Related, what string, frames []lockgraph.Frame) []Related {
	for i, f := range frames {
		msg := what + ": " + f.What
		if i > 0 {
			msg = fmt.Sprintf("%s: %s (in %s)", what, f.What, f.Func)
		}
		out = append(out, Related{Pos: f.Pos, Message: msg})
	}
	return out
}
