// Package lockseq computes, per function, the order in which locks are
// taken: which locks are held when each new lock is requested, with
// transaction and connection scope, through the SSA control-flow graph and
// across calls.
//
// The result for one function is a Summary that its callers apply at each
// call site, mapping the handles it names (its parameters and the fields
// reachable from them) to their own: that is how a helper that receives a
// transaction contributes its locks to the caller's transaction. Summaries of
// exported functions and methods cross package boundaries as facts. Where
// both ends of a "held while waiting" pair are known, the analysis emits a
// lock-order edge (lockgraph.Edge).
package lockseq

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// Ref names a database handle relative to one function:
//
//	"p2.db"     field db of the function's parameter 2 (free variables of
//	            a closure are numbered after its parameters)
//	"g:pkg.V"   package-level variable V
//	"L3"        a handle the function creates itself (Begin, Acquire)
//	"F"         a fresh pooled connection, different from every other
//	""          none
type Ref string

// fresh is the connection of a statement run on a pool: never equal to any
// other connection.
const fresh Ref = "F"

// param reports whether r is rooted at a parameter, and which.
func (r Ref) param() (int, string, bool) {
	if !strings.HasPrefix(string(r), "p") {
		return 0, "", false
	}
	s := string(r[1:])
	root, path, _ := strings.Cut(s, ".")
	// strconv rather than fmt.Sscanf: this runs for every event a caller
	// maps, and Sscanf was a tenth of the analysis.
	n, err := strconv.Atoi(root)
	if err != nil {
		return 0, "", false
	}
	return n, path, true
}

// local reports whether r names a handle private to one function call.
func (r Ref) local() bool {
	return strings.HasPrefix(string(r), "L") || strings.HasPrefix(string(r), "C")
}

// sameConn reports whether two connection refs surely name one connection.
func sameConn(a, b Ref) bool { return a == b && a != fresh && a != "" }

// distinctConns reports whether two events surely run on two connections:
// a pooled statement's connection is its own; a handle the function opened
// differs from every other; two parameters of connection or transaction
// type are two handles. A handle of interface type (a DBTX) may be the very
// transaction another parameter names, as when a helper gets both a
// transaction and the sqlc Queries wrapping it: that is no proof of a wait
// across connections. Nor is a transaction whose connection the analysis
// lost (lostConn), unless the other statement ran on a pool.
func distinctConns(x, y *Event) bool {
	a, b := x.Conn, y.Conn
	switch {
	case sameConn(a, b):
		return false
	case lostConn(x) && !pooled(y) || lostConn(y) && !pooled(x):
		return false
	case a == fresh || b == fresh || a == "" || b == "":
		return true
	case a.local() || b.local():
		return true
	}
	return x.TxKind != sqlsite.Maybe && y.TxKind != sqlsite.Maybe
}

// lostConn reports whether e ran on a transaction or a connection that
// the analysis could not follow to its caller's handle (a callback's
// parameter that the runner's summary passes no handle for, as when the
// runner begins the transaction through an interface whose implementations
// it cannot name): unlike a pool's statement, which has a connection of its
// own, it ran on some connection, perhaps the very one of the other event.
func lostConn(e *Event) bool {
	return (e.Conn == fresh || e.Conn == "") && (e.TxKind == sqlsite.Tx || e.TxKind == sqlsite.Conn)
}

// pooled reports whether e ran on a pool: on a connection of its own, which
// no transaction holds.
func pooled(e *Event) bool {
	return (e.Conn == fresh || e.Conn == "") && !lostConn(e)
}

// root returns the value r is reached from: without its field path, and
// without which implementation of a method called through an interface
// made it ("#impl1").
func (r Ref) root() string {
	s, _, _ := strings.Cut(string(r), ".")
	for {
		i := strings.Index(s, "#impl")
		if i < 0 {
			return s
		}
		j := i + len("#impl")
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		s = s[:i] + s[j:]
	}
}

// Hold says whether and how a granted lock stays held after its statement.
type Hold uint8

// Holds.
const (
	// HoldNone: the statement ran in autocommit mode; nothing is held.
	HoldNone Hold = iota
	// HoldTx: held until the transaction Tx ends.
	HoldTx
	// HoldConnTx: held until COMMIT or ROLLBACK sent as SQL on Conn.
	HoldConnTx
	// HoldSession: a session advisory lock, held until unlocked on Conn
	// or until Conn is closed.
	HoldSession
	// HoldCond: held until Tx ends if the caller's handle for Tx is a
	// transaction (Tx is a parameter of interface type such as DBTX).
	HoldCond
)

// Handle is a database handle as one function sees it.
type Handle struct {
	Ref  Ref
	Kind sqlsite.HandleKind
	// Conn names the connection the handle runs on: the handle itself
	// for a connection, the connection a transaction was begun on, fresh
	// for a pool.
	Conn Ref
}

// Event is one lock request a function makes, directly or in a callee.
type Event struct {
	Lock lockgraph.Lock
	// Tx is the handle the statement ran on and TxKind its kind.
	Tx     Ref
	TxKind sqlsite.HandleKind
	// Conn is the connection the statement ran on.
	Conn Ref
	Hold Hold
	// Path leads from the function to the request.
	Path []lockgraph.Frame
	// Stmt identifies the SQL statement: locks of one statement are taken
	// together, never one while holding another.
	Stmt string
	// Rows describes the rows of a row lock (and of a per-row advisory
	// lock) for the row-order rules.
	Rows RowInfo
	// Try marks a pg_try_advisory_* request: it never waits, but where it
	// is surely held (its result was tested true) it serialises what
	// follows like any lock, so it can be a gate.
	Try bool
	// Guards lists the function's events surely held whenever this one
	// is requested (a gate the function takes first on its caller's
	// handle): the caller's row-order rules count them as guards where
	// they are held at all.
	Guards []int
	// Scoped lists the function's events that are keyed gates of this
	// one (see keyed.go): parent rows chosen by the values that choose
	// this lock's rows. A caller that holds them where it copies this
	// event counts them, even where the values are the function's own.
	Scoped []Scope
}

// Scope names an event that is a keyed gate of another, and the columns of
// the other's table that hold the gate's values (lockgraph.KeyedGate.Held).
type Scope struct {
	Event int
	Cols  string
}

// Pair says that event Held may still be held when event Wanted is
// requested, if Held's handle turns out to be a transaction (HoldCond).
type Pair struct {
	Held, Wanted int
	// Drawn is set when the function drew the edge itself, with an
	// advisory key its callers supply taken as unknown; a caller draws it
	// again only when it binds the key.
	Drawn bool
	// Gates lists the events that stand in front of the pair in the
	// function (surely held from before Held until Wanted, see
	// lockgraph.Edge.Gates): the caller that draws the edge counts them
	// as gates where they are held at all.
	Gates []int
	// Keyed are the keyed gates that stand in front of the pair in the
	// function (lockgraph.Edge.Keyed), resolved there; the caller that
	// draws the edge counts those whose event it holds at all.
	Keyed []KeyedRef
	// Lent names the edge the function drew itself on a transaction its
	// callers lend it (lockgraph.Edge.Lent): a caller draws the pair
	// again with its own gates, and says so under this name
	// (Analysis.Lent), so that the function's own copy is withdrawn.
	Lent string
}

// KeyedRef is a keyed gate and the event that takes it.
type KeyedRef struct {
	Event int
	Gate  lockgraph.KeyedGate
}

// Flow says that result Result of the function, at field path Path
// ("" for the result itself, "db" for its field db), is handle Handle.
type Flow struct {
	Result int
	Path   string
	Handle Handle
	// OrPool is set when the function returns the caller's transaction
	// if it has one and a pool otherwise (if tx != nil { return tx };
	// return r.pool): Handle is the caller's handle, of kind Maybe.
	OrPool bool
}

// String renders the flow as "0.db=p1(transaction)", "0=p1(handle|pool)"
// for OrPool.
func (f Flow) String() string {
	p := strconv.Itoa(f.Result)
	if f.Path != "" {
		p += "." + f.Path
	}
	kind := f.Handle.Kind.String()
	if f.OrPool {
		kind += "|pool"
	}
	return fmt.Sprintf("%s=%s(%s)", p, f.Handle.Ref, kind)
}

// Sink says that the function runs the SQL text of its parameter Param on
// Handle, with the query arguments of parameter Args (-1 if none): at each
// call site the argument's text is analysed as if run there. A text the
// function builds from its parameters (a table name spliced into a query)
// is a Template instead (Param is then -1), which each call site binds.
type Sink struct {
	Param    int
	Template *sqlsite.Template
	Args     int
	// ArgParams, when Args is -1, gives for each query argument the
	// function builds itself (q, id passed as tx.Exec(ctx, q, id)) the
	// parameter it is: each call site binds the statement's $n to its
	// own values. Nil when some argument is not a parameter.
	ArgParams []int
	Handle    Handle
	// Batch is set when the text is queued in a batch rather than run.
	Batch bool
	// Held lists the function's events whose locks may be held when it
	// runs the text: the caller's statement waits while they are held.
	// Surely lists those held on every path there (gates, see lockgraph).
	Held, Surely []int
	// At is the number of the function's events requested before the
	// text runs, which places it among them.
	At int
	// Func names the function that finally runs the text, for the path
	// shown in reports ("UPDATE in a transaction, run by dbx.Exec").
	Func string
}

// Release says that the function ends the handle Ref: commits or rolls back
// a transaction (Conn false) or releases a connection (Conn true).
type Release struct {
	Ref  Ref
	Conn bool
	// Pooled is set when the connection goes back to a pool, its session
	// (and session advisory locks) going on.
	Pooled bool
	// Unlocked lists the unlocks the function makes on the connection
	// before it gives it back, on every path to every such release: a
	// deferred closure that unlocks, then closes (defer func() {
	// unlock; conn.Close() }()) gives back a connection the caller's
	// lock is already off. The function's other unlocks (Summary.Unlocks)
	// may come after the release, where they are too late.
	Unlocked []Unlock
	// At is the path to the release, from the function's own frame: a
	// leak found where a caller applies the release is reported there.
	// Where the function releases the connection at several points, the
	// one with the fewest unlocks before it.
	At []lockgraph.Frame
}

// Summary is what a function does with locks, in terms its callers can map
// to their own handles. It is exported as a fact for exported functions and
// methods.
type Summary struct {
	Events []Event
	Pairs  []Pair
	// Exit lists the events whose locks may still be held at return, and
	// Surely those of them held on every path to a return.
	Exit     []int
	Surely   []int
	Releases []Release
	Returns  []Flow
	Sinks    []Sink
	// Unlocks lists connections on which the function releases session
	// advisory locks, with the class ("" for all).
	Unlocks []Unlock
	// Invokes lists the calls the function makes to its function-valued
	// parameters.
	Invokes []Invoke
	// Tries lists the try-locks whose success a boolean result reports.
	Tries []TryResult
	// LentPairs are the function's caller-row-order findings on a
	// transaction its caller lends it (RowFinding.Lent): a caller that
	// already holds both rows at the call judges them harmless there.
	LentPairs []LentPair
	// Text lists the SQL texts the function returns (its first result),
	// as templates over its parameters, for callers in other packages
	// (sqlsite.Externals).
	Text []sqlsite.Template
	// Closures lists the function values the function returns that are
	// closures of its own, with their summaries (factory.go).
	Closures []Closure
}

// LentPair names a lent caller-row-order finding by its two events, the
// first lock and the request that waits (indices into Summary.Events),
// and by its key (RowFinding.LentKey).
type LentPair struct {
	First, Then int
	Key         string
}

// Invoke says that the function calls its function-valued parameter Param
// (free variables of a closure follow its parameters) with arguments that
// carry handles: Args[i].Result is the argument's index, Args[i].Path the
// field path in it, Args[i].Handle the handle there, in the function's
// terms. The caller applies the summary of the function it passes, at the
// call, after the function's own effects.
type Invoke struct {
	Param int
	Args  []Flow
	// Held lists the function's events whose locks may be held when it
	// invokes the callback (a helper that takes an advisory lock, then
	// runs fn): the callback's requests wait while they are held. Surely
	// lists those held on every path there.
	Held, Surely []int
}

// Unlock says that the function releases the session advisory lock Class
// ("" for every one, and for keys unknown before run time: "?") on Conn.
type Unlock struct {
	Conn Ref
	// Class is the key released; the zero Class releases every session
	// lock of the connection, and an AdvisorySite class with no site every
	// lock whose key is unknown before run time.
	Class lockgraph.Class
}

// AFact marks Summary as an analysis fact.
func (*Summary) AFact() {}

// Empty reports whether the summary says nothing a caller needs.
func (s *Summary) Empty() bool {
	return s == nil || len(s.Events) == 0 && len(s.Releases) == 0 && len(s.Returns) == 0 && len(s.Sinks) == 0 && len(s.Unlocks) == 0 && len(s.Invokes) == 0 && len(s.Text) == 0 && len(s.Closures) == 0
}

// String renders the summary compactly for tests and debugging:
// "locks(row:a FOR UPDATE@p1, ...) returns(0.db=p1) sinks(1@p0.db)".
func (s *Summary) String() string {
	var parts []string
	if len(s.Events) > 0 {
		var ev []string
		for _, e := range s.Events {
			ev = append(ev, fmt.Sprintf("%s %s@%s", e.Lock.Class, e.Lock.Mode, e.Tx))
		}
		parts = append(parts, "locks("+strings.Join(ev, ", ")+")")
	}
	if len(s.Exit) > 0 {
		parts = append(parts, fmt.Sprintf("holds%v", s.Exit))
	}
	if len(s.Tries) > 0 {
		var tr []string
		for _, t := range s.Tries {
			tr = append(tr, fmt.Sprintf("%d=result%d", t.Event, t.Result))
		}
		parts = append(parts, "tries("+strings.Join(tr, ", ")+")")
	}
	if len(s.Returns) > 0 {
		var fl []string
		for _, f := range s.Returns {
			fl = append(fl, f.String())
		}
		parts = append(parts, "returns("+strings.Join(fl, ", ")+")")
	}
	if len(s.Sinks) > 0 {
		var sk []string
		for _, k := range s.Sinks {
			if k.Template != nil {
				sk = append(sk, fmt.Sprintf("{%s}@%s", k.Template, k.Handle.Ref))
				continue
			}
			sk = append(sk, fmt.Sprintf("%d@%s", k.Param, k.Handle.Ref))
		}
		parts = append(parts, "sinks("+strings.Join(sk, ", ")+")")
	}
	if len(s.Invokes) > 0 {
		var iv []string
		for _, v := range s.Invokes {
			var as []string
			for _, a := range v.Args {
				as = append(as, a.String())
			}
			call := fmt.Sprintf("p%d(%s)", v.Param, strings.Join(as, ", "))
			if len(v.Held) > 0 {
				call += fmt.Sprintf(" holding%v", v.Held)
			}
			iv = append(iv, call)
		}
		parts = append(parts, "invokes("+strings.Join(iv, ", ")+")")
	}
	if len(s.Releases) > 0 {
		var rl []string
		for _, r := range s.Releases {
			rl = append(rl, string(r.Ref))
		}
		parts = append(parts, "ends("+strings.Join(rl, ", ")+")")
	}
	if len(s.Closures) > 0 {
		var cl []string
		for _, c := range s.Closures {
			cl = append(cl, fmt.Sprintf("%d=%s{%s}", c.Result, c.Name, c.Sum))
		}
		parts = append(parts, "closures("+strings.Join(cl, ", ")+")")
	}
	if len(s.Text) > 0 {
		texts := make([]string, len(s.Text))
		for i, t := range s.Text {
			texts[i] = "{" + t.String() + "}"
		}
		parts = append(parts, "text("+strings.Join(texts, ", ")+")")
	}
	return strings.Join(parts, " ")
}
