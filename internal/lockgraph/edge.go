// Package lockgraph holds the lock-order graph: lock classes as nodes and
// "held while waiting for" edges, each with the code path that witnesses it,
// and finds the cycles among them that can really deadlock in PostgreSQL.
package lockgraph

import (
	"cmp"
	"go/token"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// Frame is one step of a code path: a lock request, or a call that leads to
// one. Positions are token.Position, not token.Pos: a token.Pos means nothing
// outside the FileSet of one analysis pass, and edges travel between passes as
// facts.
type Frame struct {
	// Func is the function the step is in, as pkg.Func or pkg.Type.Method.
	Func string
	// Pos is the step's position. A step with no position in the source
	// has only Filename, set to the function's name.
	Pos token.Position
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
	// Class names the lockable object.
	Class Class
	Mode  lockmodel.Mode
	// Waits is false for NOWAIT, SKIP LOCKED and pg_try_* requests.
	Waits bool
	// Session marks a session-level advisory lock, which survives
	// ROLLBACK and the deadlock error.
	Session bool
	// Pooled marks a session lock taken on a connection pool: nothing
	// ties its unlock to the connection that holds it.
	Pooled bool
}

// String describes the lock for people: "rows of subscriptions (FOR UPDATE)".
func (l Lock) String() string {
	return l.Class.Describe() + " (" + l.modeName() + ")"
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
	// Keyed are row locks the path surely holds from before Held until
	// Wanted is requested whose rows are chosen by the same run-time
	// values as the rows of Held and of Wanted (see KeyedGate).
	Keyed []KeyedGate
	// Lent names the edge where both of its locks are taken on a
	// transaction Func's callers lend it (a parameter, a receiver's
	// field, the context): what the transaction holds before, a gate
	// first of all, is the callers' to see. Each caller that applies
	// Func draws the edge again with its own gates, and a driver that
	// sees such a call withdraws this copy (see lockseq.Analysis.Lent).
	// Empty for any other edge.
	Lent string
}

// KeyedGate is a lock of parent rows that a path takes first, keyed by
// values that also choose the rows of both locks of its pair: "the run's
// executions row, then the run's activity and timer rows". Two paths that
// would deadlock on a row of a table both lock that row, and so both name
// the same values in the columns Held and Wanted describe: they lock the
// same parent rows first, and PostgreSQL serialises them there.
type KeyedGate struct {
	// Lock is the parent lock (class and mode).
	Lock Lock
	// Shape is the parent lock's predicate with its parameters blanked
	// (lockmodel.RowSet.GateShape): two parent locks of one shape bound
	// to the same values lock the same rows.
	Shape string
	// Held and Wanted say which columns of the two locks' tables hold
	// the values of the parent's parameters, in the order of Shape's
	// parameters: "activity_maps:run_id=,shard_id=". They tie a row of
	// one path's Wanted to the other path's Held. One of them is empty
	// when the parent scopes the rows of only one lock of the pair (the
	// held lock is itself the parent of the wanted rows; the rows held
	// lie within a parent, the rows wanted do not).
	Held, Wanted string
}

// key identifies an edge for de-duplication: one witness per function,
// classes, modes and kind of wait.
//
// It is the text fmt.Sprintf("%s|%s|%d|%t|%t|%t|%s|%d|%t|%t|%t|%v|%v",
// e.Func, e.Held.Class, e.Held.Mode, e.Held.Waits, e.Held.Session,
// e.Held.Pooled, e.Wanted.Class, e.Wanted.Mode, e.Wanted.Waits,
// e.Wanted.Session, e.CrossConn, e.Gates, e.Keyed) would make (the order of
// edges with equal anchors depends on it), built without fmt, which took a
// third of the graph's time on hatchet (TestEdgeKey compares the two).
func (e *Edge) key() string {
	return string(e.appendKey(make([]byte, 0, 64+len(e.Func))))
}

// appendKey appends the edge's key to b.
func (e *Edge) appendKey(b []byte) []byte {
	b = append(b, e.Func...)
	b = append(b, '|')
	b = append(b, e.Held.Class.String()...)
	b = append(b, '|')
	b = strconv.AppendUint(b, uint64(e.Held.Mode), 10)
	b = appendFlags(b, e.Held.Waits, e.Held.Session, e.Held.Pooled)
	b = append(b, '|')
	b = append(b, e.Wanted.Class.String()...)
	b = append(b, '|')
	b = strconv.AppendUint(b, uint64(e.Wanted.Mode), 10)
	b = appendFlags(b, e.Wanted.Waits, e.Wanted.Session, e.CrossConn)
	b = append(b, "|["...)
	for i, g := range e.Gates {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.String()...)
	}
	b = append(b, "]|["...)
	for i, k := range e.Keyed {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '{')
		b = append(b, k.Lock.String()...)
		b = append(b, ' ')
		b = append(b, k.Shape...)
		b = append(b, ' ')
		b = append(b, k.Held...)
		b = append(b, ' ')
		b = append(b, k.Wanted...)
		b = append(b, '}')
	}
	b = append(b, ']')
	return b
}

// appendFlags appends "|true" or "|false" for each flag.
func appendFlags(b []byte, flags ...bool) []byte {
	for _, f := range flags {
		b = append(b, '|')
		b = strconv.AppendBool(b, f)
	}
	return b
}

// Anchor is the position a report about this edge points at: where the
// second lock is requested, in Func.
//
// When the request is made in a closure of Func (the callback of a
// transaction runner, whose pairs are drawn where it runs), the anchor is
// the request in the closure: the line to change, not the runner's call.
func (e *Edge) Anchor() token.Position {
	if len(e.WantedPath) == 0 {
		return token.Position{}
	}
	at := e.WantedPath[0].Pos
	for _, f := range e.WantedPath[1:] {
		// f.Func has the prefix e.Func+".func", without building it:
		// sorting edges calls Anchor at every comparison.
		if rest, ok := strings.CutPrefix(f.Func, e.Func); !ok || !strings.HasPrefix(rest, ".func") {
			break
		}
		at = f.Pos
	}
	return at
}

// InTest reports whether the edge is test code: its function is in a
// _test.go file or in a package that exists for tests (see TestCode).
func (e *Edge) InTest() bool {
	if len(e.HeldPath) == 0 {
		return false
	}
	return TestCode(e.HeldPath[0].Pos.Filename, e.Pkg)
}

// TestCode reports whether code in file, of the package with import path
// pkg, runs only under go test: a _test.go file, or a package whose name
// says it serves tests (httptest-style "...test" packages, testutil,
// testhelpers, testing, test-something helpers such as testdb and testenv,
// fixtures, mocks, testdata).
func TestCode(file, pkg string) bool {
	if strings.HasSuffix(file, "_test.go") {
		return true
	}
	pkg = strings.TrimSuffix(strings.TrimSuffix(pkg, ".test"), "_test")
	for elem := range strings.SplitSeq(pkg, "/") {
		switch elem = strings.ToLower(elem); {
		case notTestWords[elem]:
		case strings.HasSuffix(elem, "test"), strings.HasSuffix(elem, "tests"),
			strings.HasPrefix(elem, "testutil"), strings.HasPrefix(elem, "testhelper"), strings.HasPrefix(elem, "testing"),
			strings.HasPrefix(elem, "test") && testHelperNouns[strings.TrimLeft(elem[len("test"):], "_-")],
			elem == "testdata", elem == "fixtures", elem == "mocks", elem == "mock":
			return true
		}
	}
	return false
}

// notTestWords are package names that end in "test" but are words, not
// test helpers.
var notTestWords = map[string]bool{
	"latest": true, "greatest": true, "fastest": true, "shortest": true, "smartest": true, "hottest": true,
	"contest": true, "contests": true, "attest": true, "protest": true, "protests": true, "detest": true,
}

// testHelperNouns are what a package named test-something provides to tests
// (testdb, testenv, test_server): named so, it serves tests. Other names
// that start with "test" may be words (testimonials) or features (a tester
// of a customer's endpoint).
var testHelperNouns = map[string]bool{
	"db": true, "dbs": true, "database": true, "pg": true, "postgres": true, "sql": true, "env": true, "envs": true,
	"environment": true, "server": true, "servers": true, "suite": true, "suites": true, "kit": true, "support": true,
	"fixture": true, "fixtures": true, "data": true, "container": true, "containers": true, "infra": true,
	"harness": true, "setup": true, "seed": true, "seeds": true, "common": true, "lib": true, "libs": true,
}

// ComparePositions orders positions by file name, then line and column as
// numbers (file.go:33 before file.go:113).
func ComparePositions(a, b token.Position) int {
	return cmp.Or(
		cmp.Compare(a.Filename, b.Filename),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
	)
}

// Compare orders edges deterministically.
func Compare(a, b *Edge) int {
	if c := compareUnkeyed(a, b); c != 0 {
		return c
	}
	// Formatting the key costs more than the rest: only for ties (cmp.Or
	// evaluates all its arguments).
	return cmp.Compare(a.key(), b.key())
}

// compareUnkeyed is Compare without its last criterion, the key.
func compareUnkeyed(a, b *Edge) int {
	if c := compareEnds(a, b); c != 0 {
		return c
	}
	return ComparePositions(a.Anchor(), b.Anchor())
}

// compareEnds orders edges by their locks' classes, then their function:
// Compare's first criteria. Not with cmp.Or, which evaluates every one.
func compareEnds(a, b *Edge) int {
	if c := CompareClasses(a.Held.Class, b.Held.Class); c != 0 {
		return c
	}
	if c := CompareClasses(a.Wanted.Class, b.Wanted.Class); c != 0 {
		return c
	}
	return strings.Compare(a.Func, b.Func)
}

// Dedupe sorts edges and keeps one per key (the first in order).
//
// Each edge's anchor is found once, and its key hashed once: sorting by
// Compare makes them again at every comparison, which on a program of
// 30,000 edges was most of the graph's time, and keeping every key as a
// string took 12 MB on hatchet. The keys themselves, which order edges
// that Compare finds equal otherwise, are made only for those. Edges of
// one key are reduced to the first in order before the sort: they differ
// only in their anchors (and paths), so that is the one whose anchor comes
// first, the earliest given of those; a program's edges repeat (the same
// pair drawn in a package and in its test variant, or from many callers'
// paths), and only the distinct ones are sorted.
func Dedupe(edges []*Edge) []*Edge {
	type keyed struct {
		e      *Edge
		anchor token.Position
		// sum is the key's hash, 128 bits: two keys alike in it and
		// not equal are not to be met.
		sum [2]uint64
	}
	unkeyed := func(a, b keyed) int { // compareUnkeyed, with the anchors found once
		if c := compareEnds(a.e, b.e); c != 0 {
			return c
		}
		return ComparePositions(a.anchor, b.anchor)
	}
	seeds := [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	var buf []byte
	ks := make([]keyed, 0, len(edges))
	first := make(map[[2]uint64]int, len(edges)) // index in ks of each key's edge
	for _, e := range edges {
		buf = e.appendKey(buf[:0])
		k := keyed{e, e.Anchor(), [2]uint64{maphash.Bytes(seeds[0], buf), maphash.Bytes(seeds[1], buf)}}
		if i, ok := first[k.sum]; ok {
			if unkeyed(k, ks[i]) < 0 {
				ks[i] = k
			}
			continue
		}
		first[k.sum] = len(ks)
		ks = append(ks, k)
	}
	// A sort without the key, then one by key of each run of edges
	// equal without it, orders as a sort by Compare (the keys are
	// distinct now).
	slices.SortFunc(ks, unkeyed)
	type tie struct {
		k   keyed
		key string
	}
	var ties []tie
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && unkeyed(ks[i], ks[j]) == 0 {
			j++
		}
		if j-i > 1 {
			ties = ties[:0]
			for _, k := range ks[i:j] {
				ties = append(ties, tie{k, k.e.key()})
			}
			slices.SortFunc(ties, func(a, b tie) int { return strings.Compare(a.key, b.key) })
			for n, t := range ties {
				ks[i+n] = t.k
			}
		}
		i = j
	}
	out := edges[:0]
	for _, k := range ks {
		out = append(out, k.e)
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
	onTable := func(class Class) bool {
		return (class.IsRow() || class.IsTable()) && tables[class.Name]
	}
	out := make([]*Edge, 0, len(edges))
	for _, e := range edges {
		if !onTable(e.Held.Class) && !onTable(e.Wanted.Class) {
			out = append(out, e)
		}
	}
	return out
}

// WithoutLent drops the lent edges (Edge.Lent) that a caller drew again
// (judged[e.Lent]): its copy, with what the caller holds first, stands for
// them. A lent edge of a function no call applies stays.
func WithoutLent(edges []*Edge, judged map[string]bool) []*Edge {
	if len(judged) == 0 {
		return edges
	}
	out := make([]*Edge, 0, len(edges))
	for _, e := range edges {
		if e.Lent == "" || !judged[e.Lent] {
			out = append(out, e)
		}
	}
	return out
}
