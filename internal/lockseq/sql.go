package lockseq

import (
	"cmp"
	"fmt"
	"go/constant"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// query applies running the SQL text of value text on handle h, with query
// parameters params (a variadic slice, or nil).
func (fa *fnAnalysis) query(site ssa.Instruction, h Handle, text, params ssa.Value, st *state, batch bool) {
	fa.runText(site, h, sqlsite.ResolveWith(text, fa.a.externals()), params, st, batch)
}

// sinkText is the text a call site passes for a callee's sink k: the
// argument's own text, or the callee's template bound to the arguments
// (args are the callee's parameter values there).
func (fa *fnAnalysis) sinkText(k Sink, args []ssa.Value) sqlsite.Text {
	if k.Template != nil {
		return sqlsite.BindWith(*k.Template, args, fa.a.externals())
	}
	return sqlsite.ResolveWith(args[k.Param], fa.a.externals())
}

// runText runs the resolved text t on handle h. The parts of it that are
// this function's parameters, or built from them, make the function a sink
// for its callers; a part built at run time is skipped, with the reason.
func (fa *fnAnalysis) runText(site ssa.Instruction, h Handle, t sqlsite.Text, params ssa.Value, st *state, batch bool) {
	for _, p := range t.Params {
		fa.addSink(p, nil, h, params, batch, st)
	}
	for i := range t.Templates {
		fa.addSink(-1, &t.Templates[i], h, params, batch, st)
	}
	if t.Unknown {
		fa.a.skip(Skip{Reason: SkipRuntime, Posn: fa.position(site.Pos()), Detail: t.Why})
		fa.addSite(site, "", h, true, h.Kind == sqlsite.Tx, false)
	}
	if len(t.SQL) == 0 {
		return
	}
	var keyArgs []ssa.Value
	if params != nil {
		keyArgs, _ = sqlsite.VariadicElems(params)
	} else {
		keyArgs = fa.builtKeys
	}
	if t.Seq {
		// A loop over a constant list of statements: each runs in turn,
		// after the ones before it.
		unit := fa.unit
		for i, s := range t.SQL {
			fa.unit = fmt.Sprintf("%s#seq%d", unit, i)
			fa.runTexts(site, h, [][]string{{s}}, [][]ssa.Value{keyArgs}, st)
		}
		fa.unit = unit
		return
	}
	fa.runTexts(site, h, [][]string{t.SQL}, [][]ssa.Value{keyArgs}, st)
}

// runTexts runs a unit of SQL on h: one string, or the queued statements of
// a batch (units[i] lists the alternative texts of statement i). Each
// alternative combination is a possible execution: the results are joined.
func (fa *fnAnalysis) runTexts(site ssa.Instruction, h Handle, units [][]string, keyArgs [][]ssa.Value, st *state) {
	// Bound the alternatives of a batch: the first alternative of each
	// queued statement, plus every alternative of a single string.
	var runs [][]string
	if len(units) == 1 {
		for _, s := range units[0] {
			runs = append(runs, []string{s})
		}
	} else {
		var run []string
		for _, u := range units {
			run = append(run, u[0])
		}
		runs = append(runs, run)
	}
	var out *state
	for alt, run := range runs {
		s := st.clone()
		fa.runOne(site, alt, h, run, keyArgs, s)
		if out == nil {
			out = s
		} else {
			out.join(s)
		}
	}
	if out != nil {
		*st = *out
	}
}

// runOne runs the statements of one execution of a unit. Several statements
// sent together run as one implicit transaction: their locks are held until
// the unit ends, even on an autocommit handle.
func (fa *fnAnalysis) runOne(site ssa.Instruction, alt int, h Handle, texts []string, keyArgs [][]ssa.Value, st *state) {
	var (
		unitHeld []int  // held until the end of the unit only
		stmtHeld []int  // held until the end of the current statement
		curStmt  string // the current statement
	)
	idx := 0
	statements := 0
	for ti, text := range texts {
		if fa.a.skipSQL(fa.position(site.Pos()), text) {
			continue
		}
		an := fa.a.schema().Analyze(text)
		if an.Err != nil {
			fa.a.skip(Skip{Reason: SkipUnparsable, Posn: fa.position(site.Pos()), Detail: an.Err.Error()})
			continue
		}
		fa.addSite(site, text, h, false, h.Kind == sqlsite.Tx || st.sqlTx[h.Conn], takesLocks(an.Effects))
		statements += an.Statements
		dollar := "" // the text with $n markers, computed once: the text may be long
		var keys []ssa.Value
		if ti < len(keyArgs) {
			keys = keyArgs[ti]
		} else if len(keyArgs) == 1 {
			keys = keyArgs[0]
		}
		for _, eff := range an.Effects {
			// The site by its number in the function, not its address: summaries
			// are facts, and must read the same in every run.
			stmt := fmt.Sprintf("s%d%s#%d#%d#%d", fa.instrID(site), fa.unit, alt, ti, eff.Stmt)
			if stmt != curStmt {
				curStmt, stmtHeld = stmt, nil
			}
			switch eff.Kind {
			case lockmodel.Acquire:
				inTx := h.Kind == sqlsite.Tx || st.sqlTx[h.Conn]
				where := describeHandle(h, inTx)
				if !inTx {
					switch {
					case len(texts) > 1:
						where = "in a batch " + where + " (one implicit transaction)"
					case an.Statements > 1:
						where = "in a multi-statement string " + where + " (one implicit transaction)"
					}
				}
				if fa.via != "" {
					where += ", run by " + fa.via
				}
				ev := fa.newEvent(eventKey{site, alt, idx, fa.unit}, site, h, eff, keys, stmt, where, st)
				if dollar == "" {
					dollar = lockmodel.Dollar(text)
				}
				fa.events[ev].Path[len(fa.events[ev].Path)-1].SQL = dollar // replayed by reproducers, with $n markers
				if eff.Lock.Kind == lockmodel.Row {
					fa.setKeyVals(ev, eff.Rows, keys)
				}
				idx++
				fa.checkRows(site, ev, eff, keys, statements > 1 || len(texts) > 1, st)
				// One statement takes its locks one after the other (its
				// table locks as it is planned, then row by row, in the
				// order of its FROM list) and holds each until it ends,
				// even in autocommit mode.
				fa.request(ev, st, append(slices.Clone(unitHeld), stmtHeld...))
				if w := eff.Lock.Wait; w == lockmodel.Try || w == lockmodel.NoWait {
					fa.tries[ev] = tryRef{site: site, use: eff.Try, column: eff.Column, wait: w}
				}
				switch {
				case fa.events[ev].Hold != HoldNone && fa.callerHoldsRow(ev, st, false):
					// The same rows, already held in a mode that covers
					// this one (a child's foreign-key check on the row
					// the transaction locked FOR UPDATE): no lock of
					// its own, to order against the next ones.
				case fa.events[ev].Hold != HoldNone:
					// A try-lock is surely held only where its result was
					// tested true (tryBranch).
					fa.hold(st, ev, eff.Lock.Wait != lockmodel.Try)
				case statements > 1 || len(texts) > 1:
					unitHeld = fa.holdUnit(unitHeld, ev)
				default:
					stmtHeld = append(stmtHeld, ev)
				}
			case lockmodel.CreateTemp:
				fa.a.TempTables[eff.Name] = true
			case lockmodel.Unlock:
				fa.unlock(h, fa.advisoryClass(eff.Lock, keys, site), st)
			case lockmodel.UnlockAll:
				fa.unlock(h, lockgraph.Class{}, st)
			case lockmodel.Begin:
				if h.Kind != sqlsite.Tx {
					st.sqlTx[h.Conn] = true
				}
			case lockmodel.Commit, lockmodel.Rollback:
				if h.Kind == sqlsite.Tx {
					fa.endTx(h, st)
				} else {
					fa.endSQLTx(h, st)
				}
				unitHeld = nil
			}
		}
	}
	// A unit that began a transaction and did not end it leaves its locks
	// held on the connection; otherwise the implicit transaction ends here.
	if st.sqlTx[h.Conn] && h.Kind != sqlsite.Tx && h.Conn != fresh {
		for _, ev := range unitHeld {
			fa.events[ev].Hold = HoldConnTx
			fa.hold(st, ev, true)
		}
	}
	if h.Conn == fresh {
		delete(st.sqlTx, fresh)
	}
}

// newEvent creates (once) the event for one lock request and returns its
// index.
func (fa *fnAnalysis) newEvent(key eventKey, site ssa.Instruction, h Handle, eff lockmodel.Effect, keys []ssa.Value, stmt, where string, st *state) int {
	if i, ok := fa.eventIdx[key]; ok {
		return i
	}
	l := eff.Lock
	lock := lockgraph.Lock{Mode: l.Mode, Waits: l.Waits(), Session: l.Kind == lockmodel.Advisory && l.Scope == lockmodel.Session}
	switch l.Kind {
	case lockmodel.Row:
		lock.Class = lockgraph.RowsOf(l.Table)
	case lockmodel.Table:
		lock.Class = lockgraph.TableOf(l.Table)
	case lockmodel.Advisory:
		lock.Class = fa.advisoryClass(l, keys, site)
	}
	fa.a.Locked[lock.Class] = true
	ev := &Event{
		Lock: lock, Tx: h.Ref, TxKind: h.Kind, Conn: h.Conn, Stmt: stmt,
		Path: []lockgraph.Frame{fa.frame(site.Pos(), eff.Verb+" "+where)},
		Rows: fa.rowInfo(eff, keys),
		Try:  l.Wait == lockmodel.Try,
	}
	ev.Hold = fa.holdOf(ev, st)
	return fa.addEvent(key, ev, site)
}

func (fa *fnAnalysis) addEvent(key eventKey, ev *Event, site ssa.Instruction) int {
	i := len(fa.events)
	fa.events = append(fa.events, ev)
	fa.eventPos = append(fa.eventPos, site.Pos())
	fa.eventIdx[key] = i
	if ev.Lock.Session && ev.Conn == fresh && !fa.leaks[i] {
		fa.leaks[i] = true
		l := ev.Lock
		l.Class = l.Class.Concrete()
		fa.a.Leaks = append(fa.a.Leaks, Leak{Pos: site.Pos(), Lock: l, Path: ev.Path})
	}
	return i
}

// holdOf decides how long an event's lock is held, from its handle.
func (fa *fnAnalysis) holdOf(ev *Event, st *state) Hold {
	if ev.Lock.Session {
		return HoldSession
	}
	switch {
	case ev.TxKind == sqlsite.Tx:
		return HoldTx
	case st.sqlTx[ev.Conn] && ev.Conn != fresh:
		return HoldConnTx
	case ev.TxKind == sqlsite.Maybe && escapes(ev.Tx):
		return HoldCond
	}
	return HoldNone
}

// bindTemplate replaces the $n placeholders of a key template such as
// "hashtext($1)" with the text of the values passed for them, giving the
// text the lock model writes for the same call on constants
// ("hashtext('reports')").
func bindTemplate(tmpl string, arg func(n int) (string, bool)) (string, bool) {
	return substitute(tmpl, "$", arg)
}

// substitute replaces each marker followed by a number n in s with arg(n),
// failing when arg does.
func substitute(s, marker string, arg func(n int) (string, bool)) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !strings.HasPrefix(s[i:], marker) {
			b.WriteByte(s[i])
			continue
		}
		j := i + len(marker)
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(s[i+len(marker) : j])
		if err != nil {
			return "", false
		}
		c, ok := arg(n)
		if !ok {
			return "", false
		}
		b.WriteString(c)
		i = j - 1
	}
	return b.String(), true
}

// stripConversions looks through interface boxing and conversions.
func stripConversions(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeInterface:
			v = x.X
		case *ssa.Convert:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		default:
			return v
		}
	}
}

// goConst returns the text of an integer or string constant argument.
func goConst(v ssa.Value) string {
	x, ok := stripConversions(v).(*ssa.Const)
	if !ok || x.Value == nil {
		return ""
	}
	switch x.Value.Kind() {
	case constant.Int:
		return x.Value.ExactString()
	case constant.String:
		// Quoted the way the lock model writes SQL strings.
		return "'" + strings.ReplaceAll(constant.StringVal(x.Value), "'", "''") + "'"
	}
	return ""
}

// request records the edges from every held lock to a new request.
// unitHeld are locks held only until the end of the current SQL unit.
func (fa *fnAnalysis) request(w int, st *state, unitHeld []int) {
	if len(st.held)+len(unitHeld) >= maxHeld {
		// Each request costs an edge per held lock, and each edge a
		// look at every lock held around it: past the bound, the
		// function is named in a warning and its later requests are
		// left out.
		fa.limit(heldLimit)
		return
	}
	want := fa.events[w]
	// What is surely held when w is requested, on every visit: a lock
	// held then and still when a later lock is requested is a gate
	// between the two.
	if at, ok := fa.mustAt[w]; ok {
		for g := range at {
			if !st.must[g] {
				delete(at, g)
			}
		}
	} else {
		fa.mustAt[w] = maps.Clone(st.must)
	}
	held := sortedKeys(st.held)
	for _, h := range held {
		fa.checkPair(h, w, held)
	}
	if st.held[w] && !perIteration(want.Lock.Class) {
		// The same statement again (the next turn of a loop) on a table
		// or a constant advisory key the transaction holds already.
		return
	}
	if fa.alreadyHeld(want, held) || fa.alreadyHeld(want, unitHeld) {
		// The connection already holds this lock in a mode at least as
		// strong (SELECT ... FOR UPDATE, then UPDATE of the same rows):
		// PostgreSQL grants it at once, so the request waits for nothing.
		return
	}
	for _, h := range held {
		fa.edge(h, w, want, false, st, nil, nil)
	}
	for i, h := range unitHeld {
		// Statements of one unit run on one connection, even on a pool.
		// The unit's locks up to h are held from its start until it
		// ends: gates of the pair (see gates).
		fa.unitGates = unitHeld[:i+1]
		fa.edge(h, w, want, true, st, nil, nil)
	}
	fa.unitGates = nil
}

// gates returns the locks surely held both when event h was requested and
// now, when w is (and, for a pair within one statement or one unit of
// statements sent together, the unit's table and advisory locks up to h:
// the first lock of a multi-statement RENAME swap, ACCESS EXCLUSIVE on the
// table, serialises two executions of it, whatever it locks next): taken before h and kept past w, they stand in front of the
// pair. Two paths that both hold a gate that conflicts with itself (an
// exclusive advisory lock, LOCK TABLE ... EXCLUSIVE, the parent row locked
// FOR UPDATE first) cannot interleave between it and their own pair.
//
// inner are events that a callee's pair says stand in front of it (see
// Pair.Gates): gates too, where they are held at all.
func (fa *fnAnalysis) gates(h, w int, st *state, inner []int) []lockgraph.Lock {
	var out []lockgraph.Lock
	unit := len(fa.gateEvents(h, w, st)) + len(inner)
	for i, g := range slices.Concat(fa.gateEvents(h, w, st), inner, fa.unitGates) {
		e := fa.events[g]
		switch {
		case g == w, i < unit && (g == h || e.Hold == HoldNone):
			continue
		case i >= unit && (!e.Lock.Waits && !e.Try || e.Lock.Class.IsRow() && (g == h || !e.strictGate()) || !lockmodel.ModesConflict(e.Lock.Mode, e.Lock.Mode)):
			// A lock of the unit gates its later pairs, h itself
			// included, where it is one object (a table, an advisory
			// key) in a mode that excludes itself: two executions of
			// the unit both take it first. A row class stands for
			// any row, so a row lock gates only the pairs after it,
			// and only where it is one row chosen by its key, as a
			// row locked first in a transaction does (a DELETE locks
			// its own row before the cascades it fires run: they lock
			// that row's children after it).
			continue
		}
		l := e.Lock
		l.Class = l.Class.Concrete()
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b lockgraph.Lock) int {
		return cmp.Or(lockgraph.CompareClasses(a.Class, b.Class), cmp.Compare(a.Mode, b.Mode))
	})
	return out
}

// gateEvents returns the events that stand in front of the pair of h and w
// (see gates), sorted, those held only if the caller's handle is a
// transaction (HoldCond) included. A lock of several rows is none (see
// strictGate).
func (fa *fnAnalysis) gateEvents(h, w int, st *state) []int {
	var out []int
	for g := range fa.mustAt[h] {
		e := fa.events[g]
		if g == h || g == w || !st.must[g] || !e.Lock.Waits && !e.Try || e.Hold == HoldNone || !e.strictGate() {
			continue
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// alreadyHeld reports whether one of the held events is the same lock class
// as want, taken on the same connection in a mode that covers want's. A
// class stands for every row of a table, so this assumes the later request
// is for rows the connection locked already: the usual "lock first, then
// write" shape.
func (fa *fnAnalysis) alreadyHeld(want *Event, held []int) bool {
	for _, h := range held {
		have := fa.events[h]
		if have != want && have.Lock.Class == want.Lock.Class && sameConn(have.Conn, want.Conn) &&
			lockgraph.Covers(have.Lock.Mode, want.Lock.Mode) {
			return true
		}
	}
	return false
}

// edge records that event h may be held while event w is requested: an
// edge when h surely holds, a pair for the callers when that depends on
// them. inner are events that stand in front of the pair in a callee (see
// Pair.Gates).
func (fa *fnAnalysis) edge(h, w int, want *Event, sameUnit bool, st *state, inner []int, innerKeyed []KeyedRef) {
	have := fa.events[h]
	if h == w || have.Stmt == want.Stmt && h > w {
		// A statement's earlier locks are held while it takes its later
		// ones; one from a previous run of the same statement (in a
		// loop) is not ordered against it here.
		return
	}
	cross := !sameUnit && distinctConns(have, want)
	if have.Lock.Class == want.Lock.Class && !cross && !lockgraph.Upgrade(have.Lock, want.Lock) {
		// The same table or key again in one transaction: row order
		// within one table is not modelled. Only an upgrade that two
		// concurrent runs deadlock on (FOR SHARE, then FOR UPDATE) is
		// an edge.
		return
	}
	if have.Hold == HoldCond || fa.callbackOnly() {
		// Whether the first lock is held at all is for the callers
		// to say; and a callback's pair is drawn where it runs, with
		// what its runner holds around it (a gate it takes first).
		fa.pair(Pair{Held: h, Wanted: w}, st, inner, innerKeyed)
		return
	}
	lent := fa.lentEdge(have, want)
	switch {
	case lent != "":
		// What the lending caller holds first, a gate above all, is
		// for it to see: it draws the pair again, and this copy
		// stands only where no caller does (Edge.Lent).
		fa.lendPair(Pair{Held: h, Wanted: w, Lent: lent}, st, inner, innerKeyed)
	case have.Lock.Class.Parametric() || want.Lock.Class.Parametric():
		// Callers that pass constants for the key see the edge between
		// the real keys; here it is drawn with the key unknown.
		fa.pair(Pair{Held: h, Wanted: w, Drawn: true}, st, inner, innerKeyed)
	}
	if !want.Lock.Waits {
		return
	}
	gates := fa.gates(h, w, st, inner)
	keyed := fa.heldKeyed(mergeKeyed(fa.keyedGates(h, w, st), innerKeyed))
	if e, ok := fa.edges[[2]int{h, w}]; ok {
		// Seen again on another path or round: a gate is one only if
		// it stands on every path.
		e.Gates = slices.DeleteFunc(e.Gates, func(g lockgraph.Lock) bool { return !slices.Contains(gates, g) })
		e.Keyed = slices.DeleteFunc(e.Keyed, func(g lockgraph.KeyedGate) bool { return !slices.Contains(keyed, g) })
		return
	}
	held, wanted := have.Lock, want.Lock
	held.Class, wanted.Class = held.Class.Concrete(), wanted.Class.Concrete()
	held.Pooled = held.Session && have.Conn == fresh
	e := &lockgraph.Edge{
		Held: held, Wanted: wanted,
		Func: fa.name, Pkg: fa.pkgPath(),
		HeldPath: have.Path, WantedPath: want.Path,
		CrossConn: cross,
		Gates:     gates,
		Keyed:     keyed,
		Lent:      lent,
	}
	fa.edges[[2]int{h, w}] = e
	fa.a.Edges = append(fa.a.Edges, e)
	fa.a.edgeFn[e] = fa.fn
	fa.a.EdgePos[e] = fa.eventPos[w]
}

// lentEdge returns the name of the edge from have to want (see
// lockgraph.Edge.Lent) when both are taken on one transaction the
// function's callers lend it (borrowedTx), and "" otherwise.
func (fa *fnAnalysis) lentEdge(have, want *Event) string {
	if !fa.lentTo(have, want) {
		return ""
	}
	if fa.lent >= maxLentPairs {
		fa.limit(lentLimit)
		return ""
	}
	return LentEdgeKey(fa.name, have.Path, want.Path, have.Lock.Class.Concrete(), want.Lock.Class.Concrete())
}

// lentTo reports whether have and want are taken on one transaction the
// function's callers lend it (borrowedTx).
func (fa *fnAnalysis) lentTo(have, want *Event) bool {
	return have.Tx == want.Tx && fa.borrowedTx(have) && fa.borrowedTx(want)
}

// lendPair records a pair for the callers to draw, counting it against
// maxLentPairs the first time.
func (fa *fnAnalysis) lendPair(p Pair, st *state, inner []int, innerKeyed []KeyedRef) {
	if _, ok := fa.pairs[[2]int{p.Held, p.Wanted}]; !ok {
		fa.lent++
	}
	fa.pair(p, st, inner, innerKeyed)
}

// LentEdgeKey names a lent edge of function fn (lockgraph.Edge.Lent) by
// the statements that take its two locks and their classes: the same in
// fn's own analysis and at its callers, in any package, and never the name
// of a row finding (LentKey).
func LentEdgeKey(fn string, held, wanted []lockgraph.Frame, heldClass, wantedClass lockgraph.Class) string {
	if len(held) == 0 || len(wanted) == 0 {
		return ""
	}
	return "edge\x00" + fn + "\x00" + held[len(held)-1].Pos.String() + "\x00" + wanted[len(wanted)-1].Pos.String() +
		"\x00" + heldClass.String() + "\x00" + wantedClass.String()
}

// pair records a pair for the callers to draw, with the events that stand
// in front of it here (Pair.Gates): on every visit, so only those on every
// path stay.
func (fa *fnAnalysis) pair(p Pair, st *state, inner []int, innerKeyed []KeyedRef) {
	key := [2]int{p.Held, p.Wanted}
	gates := slices.Concat(fa.gateEvents(p.Held, p.Wanted, st), inner)
	slices.Sort(gates)
	gates = slices.Compact(gates)
	keyed := mergeKeyed(fa.keyedGates(p.Held, p.Wanted, st), innerKeyed)
	if old, ok := fa.pairs[key]; ok {
		old.Gates = slices.DeleteFunc(old.Gates, func(g int) bool { return !slices.Contains(gates, g) })
		old.Keyed = slices.DeleteFunc(old.Keyed, func(g KeyedRef) bool { return !slices.Contains(keyed, g) })
		old.Drawn = old.Drawn || p.Drawn
		old.Lent = cmp.Or(old.Lent, p.Lent)
		fa.pairs[key] = old
		return
	}
	p.Gates = gates
	p.Keyed = keyed
	fa.pairs[key] = p
}

// strictGate reports whether the event's lock can gate a pair: an advisory
// or table lock, or one row (the parent row, by its key). A lock of several
// rows of a table stands for no row in particular: two executions may lock
// different ones and both go on.
func (e *Event) strictGate() bool {
	return !e.Lock.Class.IsRow() || e.Rows.KeyColumn != "" && !e.Rows.Multi
}

// classSite names a SQL site for a lock class: the package's import path,
// the file's base name, the line and column ("example.com/app/billing/
// invoice.go:20:24"). Unlike the file's path on disk it is the same in every
// checkout, so classes, fingerprints, baselines and graphs carry no
// machine's directory.
func (fa *fnAnalysis) classSite(pos token.Pos) string {
	p := fa.sourcePosition(pos)
	if !p.IsValid() {
		return p.String()
	}
	pkg := strings.TrimSuffix(strings.TrimSuffix(fa.pkgPath(), ".test"), "_test")
	return fmt.Sprintf("%s/%s:%d:%d", pkg, filepath.Base(p.Filename), p.Line, p.Column)
}

func (fa *fnAnalysis) pkgPath() string {
	if fa.fn.Pkg != nil {
		return fa.fn.Pkg.Pkg.Path()
	}
	return ""
}

// endTx releases the locks held by transaction h.
func (fa *fnAnalysis) endTx(h Handle, st *state) {
	for i := range st.held {
		e := fa.events[i]
		if e.Tx == h.Ref && (e.Hold == HoldTx || e.Hold == HoldCond) {
			st.drop(i)
		}
	}
	if escapes(h.Ref) {
		fa.recordRelease(releaseKey{ref: h.Ref}, nil, nil)
	}
}

// endSQLTx releases the locks of a transaction begun in SQL text on h's
// connection.
func (fa *fnAnalysis) endSQLTx(h Handle, st *state) {
	for i := range st.held {
		e := fa.events[i]
		if e.Hold == HoldConnTx && sameConn(e.Conn, h.Conn) {
			st.drop(i)
		}
	}
	delete(st.sqlTx, h.Conn)
}

// releaseConn releases every lock of connection h: closing or releasing a
// connection ends its session and any transaction on it.
//
// A connection given back to a pool (pooled) keeps its session: a session
// advisory lock still held then stays with whoever gets the connection
// next, and is reported as a leak at site. at is the path to the release
// when a callee makes it (Release.At; nil for the function's own), and
// at is set when that callee is a closure of this function's body (a
// deferred func literal): the leak is reported at the release itself,
// in the closure, rather than at the call.
func (fa *fnAnalysis) releaseConn(site ssa.Instruction, h Handle, pooled bool, st *state, at []lockgraph.Frame, here bool) {
	for _, i := range sortedKeys(st.held) {
		e := fa.events[i]
		if !sameConn(e.Conn, h.Conn) {
			continue
		}
		if pooled && e.Lock.Session && !fa.returned[[2]int{i, fa.instrID(site)}] {
			fa.returned[[2]int{i, fa.instrID(site)}] = true
			l := e.Lock
			l.Class = l.Class.Concrete()
			leak := Leak{Pos: site.Pos(), Lock: l, Path: e.Path, Returned: true, Release: at}
			if here && len(at) > 0 {
				leak.At = at[len(at)-1].Pos
			}
			fa.a.Leaks = append(fa.a.Leaks, leak)
		}
		st.drop(i)
	}
	delete(st.sqlTx, h.Conn)
	if escapes(h.Conn) {
		if len(at) == 0 {
			at = []lockgraph.Frame{fa.frame(site.Pos(), "releases the connection")}
		}
		fa.recordRelease(releaseKey{ref: h.Conn, conn: true, pooled: pooled}, at, st)
	}
}

// recordRelease records, for the summary, a release of a handle that
// outlives the function, made at the end of path at with st's unlocks
// behind it (nil: none counted). Each release point met narrows the
// unlocks made before every one of them; the path kept is that of a point
// with the fewest, where a lock the caller holds is likeliest still held.
func (fa *fnAnalysis) recordRelease(k releaseKey, at []lockgraph.Frame, st *state) {
	var unlocked []Unlock
	if st != nil {
		for u := range st.unlocked {
			if u.Conn == k.ref {
				unlocked = append(unlocked, u)
			}
		}
	}
	r, seen := fa.releases[k]
	if !seen {
		fa.releases[k] = &Release{Ref: k.ref, Conn: k.conn, Pooled: k.pooled, Unlocked: unlocked, At: at}
		return
	}
	kept := slices.DeleteFunc(r.Unlocked, func(u Unlock) bool { return !slices.Contains(unlocked, u) })
	if len(kept) < len(r.Unlocked) || len(r.At) == 0 {
		r.At = at
	}
	r.Unlocked = kept
}

// unlock releases session advisory locks of class on h's connection; an
// empty class releases all of them. A key unknown before run time (its
// class is named after a site) releases every lock whose key was unknown
// too: the usual shape is lock($1) ... unlock($1) with the same Go value.
func (fa *fnAnalysis) unlock(h Handle, class lockgraph.Class, st *state) {
	unknown := class.Kind == lockgraph.AdvisorySite
	for i := range st.held {
		e := fa.events[i]
		if !e.Lock.Session || !sameConn(e.Conn, h.Conn) && h.Conn != fresh {
			continue
		}
		if class.IsZero() || e.Lock.Class.Key() == class.Key() || unknown && e.Lock.Class.Concrete().Kind == lockgraph.AdvisorySite {
			st.drop(i)
		}
	}
	if escapes(h.Conn) {
		if unknown {
			// Callers release every key unknown to them: the site
			// means nothing there.
			class = lockgraph.AdvisoryAt("")
		}
		u := Unlock{Conn: h.Conn, Class: class}
		fa.unlocks[u] = true
		st.unlocked[u] = true
	}
}

// addSink records that the function runs the text of its parameter p, or
// the text tmpl builds from its parameters.
func (fa *fnAnalysis) addSink(p int, tmpl *sqlsite.Template, h Handle, params ssa.Value, batch bool, st *state) {
	args := -1
	if prm, ok := params.(*ssa.Parameter); ok {
		args = slices.Index(fa.fn.Params, prm)
	}
	k := Sink{Param: p, Args: args, Handle: h, Batch: batch}
	if args < 0 && params != nil {
		k.ArgParams = fa.argParams(params)
	}
	held, surely := sortedKeys(st.held), sortedKeys(st.must)
	key := fmt.Sprint(k)
	if tmpl != nil {
		key += tmpl.String()
		k.Template = tmpl
	}
	if i, ok := fa.sinks[key]; ok {
		// Seen again: on another path it may hold other locks.
		v := &fa.sum.Sinks[i]
		v.Held, v.Surely = mergeHeld(v.Held, v.Surely, held, surely)
		return
	}
	k.Held, k.Surely = held, surely
	k.At = len(fa.events)
	k.Func = fa.name
	if fa.via != "" {
		k.Func = fa.via
	}
	fa.sinks[key] = len(fa.sum.Sinks)
	fa.sum.Sinks = append(fa.sum.Sinks, k)
}

// argParams returns, for a variadic slice of query arguments the function
// builds (tx.Exec(ctx, q, id)), the parameter each element is, or nil when
// one of them is something else.
func (fa *fnAnalysis) argParams(params ssa.Value) []int {
	elems, ok := sqlsite.VariadicElems(params)
	if !ok || len(elems) == 0 {
		return nil
	}
	out := make([]int, len(elems))
	for i, e := range elems {
		var j int
		switch x := stripConversions(e).(type) {
		case *ssa.Parameter:
			j = slices.Index(fa.fn.Params, x)
		case *ssa.FreeVar:
			j = slices.Index(fa.fn.FreeVars, x)
			if j >= 0 {
				j += len(fa.fn.Params)
			}
		default:
			return nil
		}
		if j < 0 {
			return nil
		}
		out[i] = j
	}
	return out
}

// sinkKeys returns the values a call site passes for a sink's query
// arguments (Sink.ArgParams), or nil.
func sinkKeys(k Sink, args []ssa.Value) []ssa.Value {
	if len(k.ArgParams) == 0 {
		return nil
	}
	keys := make([]ssa.Value, len(k.ArgParams))
	for i, p := range k.ArgParams {
		if p >= len(args) || args[p] == nil {
			return nil
		}
		keys[i] = args[p]
	}
	return keys
}

// sendBatch runs the statements queued in a pgx.Batch, in the order they
// were queued, as one unit.
func (fa *fnAnalysis) sendBatch(site ssa.Instruction, h Handle, batch ssa.Value, st *state) {
	root := batchRoot(batch)
	if root == nil {
		return
	}
	type queued struct {
		pos  int
		text []string
		keys []ssa.Value
	}
	var qs []queued
	for _, b := range fa.fn.Blocks {
		for i, instr := range b.Instrs {
			call, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			op := fa.a.env.Rules.Classify(call.Common())
			if op.Kind != sqlsite.Queue || batchRoot(op.Recv) != root {
				continue
			}
			t := sqlsite.ResolveWith(op.Args[op.Query], fa.a.externals())
			for _, p := range t.Params {
				fa.addSink(p, nil, h, argOrNil(op.Args, op.Params), true, st)
			}
			for i := range t.Templates {
				fa.addSink(-1, &t.Templates[i], h, argOrNil(op.Args, op.Params), true, st)
			}
			if t.Unknown {
				fa.a.skip(Skip{Reason: SkipRuntime, Posn: fa.position(call.Pos()), Detail: t.Why})
			}
			if len(t.SQL) == 0 {
				continue
			}
			keys, _ := sqlsite.VariadicElems(argOrNil(op.Args, op.Params))
			qs = append(qs, queued{pos: b.Index*10000 + i, text: t.SQL, keys: keys})
			fa.checkQueuedInLoop(call, h, t.SQL[0], keys)
		}
	}
	slices.SortFunc(qs, func(a, b queued) int { return cmp.Compare(a.pos, b.pos) })
	if len(qs) == 0 {
		return
	}
	units := make([][]string, len(qs))
	keys := make([][]ssa.Value, len(qs))
	for i, q := range qs {
		units[i], keys[i] = q.text, q.keys
	}
	fa.runTexts(site, h, units, keys, st)
}

// batchRoot finds the allocation of a batch value.
func batchRoot(v ssa.Value) ssa.Value {
	for range 8 {
		switch x := v.(type) {
		case *ssa.Alloc:
			return x
		case *ssa.UnOp:
			v = x.X
		case *ssa.Phi:
			if len(x.Edges) == 0 {
				return nil
			}
			v = x.Edges[0]
		default:
			return v
		}
	}
	return nil
}

// preparedStmt finds the handle and the query text of a database/sql
// prepared statement.
func (fa *fnAnalysis) preparedStmt(v ssa.Value) (Handle, ssa.Value, bool) {
	var call *ssa.Call
	switch x := v.(type) {
	case *ssa.Extract:
		call, _ = x.Tuple.(*ssa.Call)
	case *ssa.Call:
		call = x
	}
	if call == nil {
		return Handle{}, nil, false
	}
	op := fa.a.env.Rules.Classify(call.Common())
	switch op.Kind {
	case sqlsite.Prepare:
		if op.Query < 0 {
			return Handle{}, nil, false
		}
		return fa.handleOf(op.Recv), op.Args[op.Query], true
	case sqlsite.BindStmt:
		_, q, ok := fa.preparedStmt(op.Args[op.Query])
		return fa.handleOf(op.Recv), q, ok
	}
	return Handle{}, nil, false
}

// perIteration reports whether a lock class stands for objects that can
// differ each time its statement runs: rows of a table, or an advisory key
// known only at run time.
func perIteration(class lockgraph.Class) bool {
	return class.IsRow() || class.Kind == lockgraph.AdvisorySite || class.Parametric()
}
