// Package repro turns a reported lock-order cycle into a script that
// reproduces it on a real PostgreSQL server.
//
// A static report of a deadlock is a claim; a reproducer lets the user see
// it happen. For each cycle, Build lays out one database session per code
// path of the cycle (two for a path that holds a lock on one connection
// while it waits on another), the statements each path sends, as the
// application sends them, and the interleaving that deadlocks: every session
// first takes the lock it holds, then each in turn requests the lock it
// waits for. The $n placeholders of the statements become psql variables
// that the user fills in. Render writes the script as a shell script that
// runs the sessions with psql, and states the outcome to expect.
package repro

import (
	"fmt"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// Expect is the outcome a reproducer should show.
type Expect uint8

// The outcomes.
const (
	// Deadlock: one session fails with 40P01 "deadlock detected" about
	// deadlock_timeout after the first wait; the others go on.
	Deadlock Expect = iota + 1
	// DeadlockSessionLock: as Deadlock, but a session-level advisory lock
	// of the cycle survives the error and ROLLBACK: whoever waits for it
	// stays blocked until the holder unlocks or disconnects.
	DeadlockSessionLock
	// Hang: the cycle passes through the application (a lock held on one
	// connection while waiting on another); the server sees no deadlock,
	// and only lock_timeout (55P03) or statement_timeout ends the wait.
	Hang
)

// String describes the outcome for people.
func (e Expect) String() string {
	switch e {
	case Deadlock:
		return "one session fails with ERROR: deadlock detected (SQLSTATE 40P01) about deadlock_timeout (1s by default) after the first wait; the others then go on"
	case DeadlockSessionLock:
		return "one session fails with ERROR: deadlock detected (SQLSTATE 40P01), but a session-level advisory lock survives the error and ROLLBACK: a session waiting for it stays blocked until the holder unlocks or disconnects (here: until lock_timeout, SQLSTATE 55P03)"
	case Hang:
		return "no deadlock error: the server cannot see the wait that passes through the application, so the sessions hang until lock_timeout ends the wait with ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)"
	}
	return fmt.Sprintf("Expect(%d)", e)
}

// Step is one SQL string a session sends.
type Step struct {
	// SQL is the statement text with each $n placeholder replaced by a
	// psql variable reference, :'name'.
	SQL string
	// Pos is where the application sends it ("file:line:col") and Func
	// the function that does.
	Pos, Func string
	// Lock describes the lock of the cycle the step takes or waits for.
	Lock string
}

// Session is one database connection of the reproducer.
type Session struct {
	// Name is "s1", "s2", ...
	Name string
	// Path describes the code path the session replays.
	Path string
	// Tx is set when the session runs in a transaction block (BEGIN ...
	// ROLLBACK); a second connection of a cross-connection path runs in
	// autocommit mode.
	Tx bool
	// Hold are the steps that take the lock the session holds; Wait is the
	// step that then waits. Either may be empty: a session that only
	// holds (the first connection of a cross-connection path) or one
	// whose two locks are taken by one statement.
	Hold []Step
	Wait *Step
}

// Var is a placeholder the user fills in.
type Var struct {
	// Name is the psql variable, such as "bins_p1".
	Name string
	// Note says where it is used.
	Note string
}

// Script is the reproducer of one cycle.
type Script struct {
	// Title names the cycle, as its locks in order.
	Title  string
	Expect Expect
	// Sessions run their Hold steps first, in order, then their Wait
	// steps in the order of WaitOrder (indexes into Sessions).
	Sessions  []*Session
	WaitOrder []int
	Vars      []Var
	// Missing lists what could not be reproduced (a lock whose statement
	// text is unknown); a script with Missing set is incomplete.
	Missing []string
	// Needs lists what the database must hold before the script runs,
	// such as the rows a foreign-key check or a cascade locks.
	Needs []string
	// Setup lists the CREATE OR REPLACE statements of the functions,
	// procedures and triggers of the schema that the sessions' statements
	// run (lockmodel.Definitions): run once before the sessions start.
	Setup []string
}

// Build returns the reproducer of a cycle found with schema (nil: none),
// whose functions and triggers the statements may run. relFile shortens
// file names for display (nil keeps them).
func Build(c *lockgraph.Cycle, schema *lockmodel.Schema, relFile func(string) string) *Script {
	rel := func(p token.Position) string {
		if relFile != nil && p.IsValid() {
			p.Filename = relFile(p.Filename)
		}
		return p.String()
	}
	sc := &Script{Expect: Deadlock}
	names := make([]string, 0, len(c.Steps)+1)
	for _, s := range c.Steps {
		names = append(names, s.Held.Class.Describe())
		if s.CrossConn {
			sc.Expect = Hang
		}
		if s.Held.Session && sc.Expect != Hang {
			sc.Expect = DeadlockSessionLock
		}
	}
	steps := c.Steps
	if len(steps) == 1 && !steps[0].CrossConn {
		// A lock upgrade: one path run twice at once.
		steps = []*lockgraph.Edge{steps[0], steps[0]}
	}
	if len(c.Steps) > 1 || c.Steps[0].CrossConn {
		names = append(names, names[0])
	}
	sc.Title = strings.Join(names, " -> ")
	vars := map[string]string{}
	keys := map[lockgraph.Class]string{} // advisory class -> its variables' prefix
	addVars := func(sql string, class lockgraph.Class, where string) string {
		prefix := func() string {
			if !class.IsAdvisory() {
				return subject(class.Name)
			}
			// Advisory keys are numbered in the order the script
			// needs them.
			if keys[class] == "" {
				keys[class] = fmt.Sprintf("key%d", len(keys)+1)
			}
			return keys[class]
		}
		return placeholders(sql, prefix, advisoryArgs(schema, sql, class), lockmodel.ParamColumnsOf(sql), func(name, param string) {
			if _, ok := vars[name]; !ok {
				// "parameter 1", not "$1": the note is expanded by the
				// shell in the script's guard.
				vars[name] = fmt.Sprintf("parameter %s of the statements on %s (%s)", strings.TrimPrefix(param, "$"), class.Short(), where)
			}
		})
	}
	var waiters, holdersFirst []int
	for _, e := range steps {
		held, wanted := last(e.HeldPath), last(e.WantedPath)
		s := &Session{
			Name: fmt.Sprintf("s%d", len(sc.Sessions)+1),
			Path: e.Func,
			Tx:   true,
		}
		sc.Sessions = append(sc.Sessions, s)
		heldSQL, wantSQL := held.SQL, wanted.SQL
		for _, f := range []lockgraph.Frame{held, wanted} {
			need := ""
			switch {
			case strings.Contains(f.What, "foreign key check"):
				need = "the parent row the inserted or updated row references (the foreign-key check locks it)"
			case strings.Contains(f.What, "ON DELETE") || strings.Contains(f.What, "ON UPDATE"):
				need = "a child row that references the parent (a cascade locks only rows that exist)"
			}
			if need != "" && !slices.Contains(sc.Needs, need) {
				sc.Needs = append(sc.Needs, need)
			}
		}
		for _, q := range []string{heldSQL, wantSQL} {
			// The schema's functions and triggers the statements run.
			for _, def := range schema.Definitions(q) {
				if !slices.Contains(sc.Setup, def) {
					sc.Setup = append(sc.Setup, def)
				}
			}
		}
		if heldSQL == "" {
			sc.Missing = append(sc.Missing, fmt.Sprintf("the statement that takes %s at %s", e.Held, rel(held.Pos)))
		}
		if wantSQL == "" {
			sc.Missing = append(sc.Missing, fmt.Sprintf("the statement that waits for %s at %s", e.Wanted, rel(wanted.Pos)))
		}
		var holdStmts []string
		waitStmt := wantSQL
		if heldSQL != "" && samePath(e.HeldPath, e.WantedPath) {
			// One SQL string takes both locks: replay its statements one
			// by one where it has several; a single statement that takes
			// both can only be replayed whole.
			holdStmts, waitStmt = splitAt(schema, heldSQL, e.Held, e.Wanted)
		} else if heldSQL != "" {
			holdStmts = []string{heldSQL}
		}
		for _, q := range holdStmts {
			s.Hold = append(s.Hold, Step{SQL: addVars(q, e.Held.Class, rel(held.Pos)), Pos: rel(held.Pos), Func: held.Func, Lock: e.Held.String()})
		}
		w := s
		if e.CrossConn {
			// The path waits on a second connection of its own.
			w = &Session{Name: fmt.Sprintf("s%d", len(sc.Sessions)+1), Path: e.Func + " (second connection)"}
			sc.Sessions = append(sc.Sessions, w)
		}
		if waitStmt != "" {
			// A statement that takes both locks is named after the first.
			varClass := e.Wanted.Class
			if len(holdStmts) == 0 && samePath(e.HeldPath, e.WantedPath) {
				varClass = e.Held.Class
			}
			w.Wait = &Step{SQL: addVars(waitStmt, varClass, rel(wanted.Pos)), Pos: rel(wanted.Pos), Func: wanted.Func, Lock: e.Wanted.String()}
			// A session that holds nothing before it waits takes its
			// first lock in the waiting statement itself: it must start
			// before the sessions that wait for that lock.
			if len(w.Hold) == 0 && w == s {
				holdersFirst = append(holdersFirst, len(sc.Sessions)-1)
			} else {
				waiters = append(waiters, len(sc.Sessions)-1)
			}
		}
	}
	sc.WaitOrder = slices.Concat(holdersFirst, waiters)
	for name, note := range vars {
		sc.Vars = append(sc.Vars, Var{Name: name, Note: note})
	}
	slices.SortFunc(sc.Vars, func(a, b Var) int { return strings.Compare(a.Name, b.Name) })
	return sc
}

// samePath reports whether two paths reach the same SQL execution (the
// same positions all the way down): then one SQL string takes both locks.
// A helper called twice has one SQL site but two paths.
func samePath(a, b []lockgraph.Frame) bool {
	return slices.EqualFunc(a, b, func(x, y lockgraph.Frame) bool { return x.Pos == y.Pos && x.SQL == y.SQL })
}

func last(path []lockgraph.Frame) lockgraph.Frame {
	if len(path) == 0 {
		return lockgraph.Frame{}
	}
	return path[len(path)-1]
}

// splitAt splits a multi-statement string into the statements up to the one
// that takes held and the one that then waits for wanted. When one
// statement takes both, it is returned as the waiting statement alone.
func splitAt(schema *lockmodel.Schema, sql string, held, wanted lockgraph.Lock) (hold []string, wait string) {
	stmts, err := lockmodel.Split(sql)
	if err != nil || len(stmts) < 2 {
		return nil, sql
	}
	h := -1
	for i, q := range stmts {
		if h < 0 && takes(schema, q, held.Class) {
			h = i
			continue
		}
		if h >= 0 && takes(schema, q, wanted.Class) {
			return stmts[:h+1], strings.Join(stmts[h+1:i+1], "; ")
		}
	}
	return nil, sql
}

// takes reports whether a statement requests a lock of class (row or table
// classes; any advisory lock for an advisory class).
func takes(schema *lockmodel.Schema, sql string, class lockgraph.Class) bool {
	for _, e := range schema.Analyze(sql).Effects {
		if e.Kind != lockmodel.Acquire {
			continue
		}
		switch e.Lock.Kind {
		case lockmodel.Row:
			if class == lockgraph.RowsOf(e.Lock.Table) {
				return true
			}
		case lockmodel.Table:
			if class == lockgraph.TableOf(e.Lock.Table) {
				return true
			}
		case lockmodel.Advisory:
			if class.IsAdvisory() {
				return true
			}
		}
	}
	return false
}

// subject names the placeholders of a statement after the table its lock
// is on, so that every session that locks rows of one table shares the
// variables that select them.
func subject(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// paramRE matches a $n placeholder. (A "$1" inside a string literal would
// be replaced too; applications do not write those.)
var paramRE = regexp.MustCompile(`\$([0-9]+)\b`)

// placeholders replaces each $n of sql with its known value from known, or
// else with :'<table>_<column>' when the parameter is compared with,
// assigned to or inserted into a column (cols; the table is the column's
// own when the statement says, a sub-select's table for instance, else
// prefix), or :'<prefix>_p<n>', and reports each variable to add. Naming by
// column shares a variable between two statements only when they mean the
// same column of the same table.
func placeholders(sql string, prefix func() string, known map[string]string, cols map[int]lockmodel.Column, add func(name, param string)) string {
	return paramRE.ReplaceAllStringFunc(sql, func(m string) string {
		if v, ok := known[m]; ok {
			return v
		}
		name := prefix() + "_p" + m[1:]
		if n, err := strconv.Atoi(m[1:]); err == nil && cols[n].Name != "" && identRE.MatchString(cols[n].Name) {
			table := prefix()
			if cols[n].Table != "" {
				table = subject(cols[n].Table)
			}
			name = table + "_" + strings.ToLower(cols[n].Name)
		}
		add(name, m)
		return ":'" + name + "'"
	})
}

// identRE matches a column name usable in a psql variable name.
var identRE = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// varRE matches a psql variable reference :'name'.
var varRE = regexp.MustCompile(`:'([A-Za-z0-9_]+)'`)

// Bind replaces the psql variable references of sql by quoted literals of
// the given values (an untyped literal, which PostgreSQL casts to the
// column's or argument's type), for replaying a step without psql. A
// variable without a value becomes NULL.
func Bind(sql string, values map[string]string) string {
	return varRE.ReplaceAllStringFunc(sql, func(m string) string {
		v, ok := values[m[2:len(m)-1]]
		if !ok {
			return "NULL"
		}
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	})
}

// advisoryArgs returns the values of the $n placeholders of an advisory
// lock call whose key the analyzer knows from the Go code (the class
// "advisory:(42)" of "SELECT pg_advisory_lock($1)" gives $1 = 42): the
// reproducer must lock that very key, not one the user picks. The parts of a
// key shape known only at run time ("(7, <?>)") are left to the script's
// variables.
func advisoryArgs(schema *lockmodel.Schema, sql string, class lockgraph.Class) map[string]string {
	inner, ok := strings.CutPrefix(class.Name, "(")
	if class.Kind != lockgraph.AdvisoryKey || strings.Contains(class.Name, "?p") || !ok || !strings.HasSuffix(inner, ")") {
		return nil
	}
	parts := splitTop(strings.TrimSuffix(inner, ")"))
	for _, e := range schema.Analyze(sql).Effects {
		if e.Lock.Kind != lockmodel.Advisory || len(e.Lock.Key.Parts) != len(parts) {
			continue
		}
		out := map[string]string{}
		for i, p := range e.Lock.Key.Parts {
			if strings.Contains(parts[i], "<") {
				// A key shape ("<accountid>"): a value known only at
				// run time, a variable of the script, shared by the
				// sessions that lock this class.
				continue
			}
			switch {
			case p.Param > 0:
				out["$"+strconv.Itoa(p.Param)] = parts[i]
			case p.Template != "":
				if n, v, ok := matchTemplate(p.Template, parts[i]); ok {
					out["$"+strconv.Itoa(n)] = v
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// matchTemplate matches a key template with one placeholder
// ("hashtext($1)") against the key's bound text ("hashtext('reports')") and
// returns the placeholder's number and value ("'reports'").
func matchTemplate(tmpl, bound string) (int, string, bool) {
	loc := paramRE.FindStringSubmatchIndex(tmpl)
	if loc == nil || len(paramRE.FindAllString(tmpl, -1)) != 1 {
		return 0, "", false
	}
	prefix, suffix := tmpl[:loc[0]], tmpl[loc[1]:]
	if len(bound) < len(prefix)+len(suffix) || !strings.HasPrefix(bound, prefix) || !strings.HasSuffix(bound, suffix) {
		return 0, "", false
	}
	n, err := strconv.Atoi(tmpl[loc[2]:loc[3]])
	if err != nil {
		return 0, "", false
	}
	return n, bound[len(prefix) : len(bound)-len(suffix)], true
}

// splitTop splits a key's text at the commas outside parentheses and
// quotes: "1, hashtext('a, b')" gives "1" and "hashtext('a, b')".
func splitTop(s string) []string {
	var (
		out   []string
		depth int
		quote bool
		start int
	)
	for i, r := range s {
		switch {
		case r == '\'':
			quote = !quote
		case quote:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
