package lockseq

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// apply applies a callee's summary at a call site: its SQL sinks run the
// caller's query texts, its lock requests wait while the caller's locks are
// held, its conditional pairs become edges where the caller's handle is a
// transaction, and what it still holds at return is held by the caller.
//
// scope tells apart the summaries applied at one site (see mapHandle).
func (fa *fnAnalysis) apply(site ssa.Instruction, scope string, sum *Summary, args []ssa.Value, bind binder, st *state) {
	if len(sum.Events) == 0 && len(sum.Releases) == 0 && len(sum.Unlocks) == 0 && len(sum.Invokes) == 0 && len(sum.Sinks) == 0 {
		return
	}
	mapped := make([]int, len(sum.Events))
	for i := range sum.Events {
		mapped[i] = fa.mapEvent(site, scope, i, &sum.Events[i], args, bind)
		fa.relabel(mapped[i], &sum.Events[i], st)
		fa.checkMapped(site, mapped[i], &sum.Events[i], args, st, mapped[:i])
	}
	fa.judgeLentPairs(sum, mapped, st)
	if scope == "" {
		// The callee's try-locks: held where the result that reports
		// them is true (see tryBranch).
		for _, t := range sum.Tries {
			if t.Event < len(mapped) {
				fa.tries[mapped[t.Event]] = tryRef{site: site, column: t.Result, callee: true, wait: lockmodel.Try}
			}
		}
	}
	// The callee's requests, with the SQL it runs for this caller placed
	// among them where the callee runs it.
	order := make([]int, len(sum.Sinks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return sum.Sinks[a].At - sum.Sinks[b].At })
	for i, m := range mapped {
		for len(order) > 0 && sum.Sinks[order[0]].At <= i {
			fa.applySink(site, fmt.Sprintf("%s#sink%d", scope, order[0]), sum.Sinks[order[0]], mapped, args, bind, st)
			order = order[1:]
		}
		fa.request(m, st, nil)
	}
	for _, k := range order {
		fa.applySink(site, fmt.Sprintf("%s#sink%d", scope, k), sum.Sinks[k], mapped, args, bind, st)
	}
	for _, p := range sum.Pairs {
		if p.Held >= len(mapped) || p.Wanted >= len(mapped) {
			continue
		}
		h, w := mapped[p.Held], mapped[p.Wanted]
		if p.Lent != "" {
			inner, innerKeyed := mapGates(p, mapped)
			switch {
			case fa.lentEdge(fa.events[h], fa.events[w]) != "":
				// Lent to this function in turn: its callers draw
				// the pair, with what they and this function hold
				// first, under the name of the function that drew
				// it (Edge.Lent). Drawn at every level, the pairs
				// of a chain of helpers would cost its square.
				fa.lendPair(Pair{Held: h, Wanted: w, Lent: p.Lent}, st, inner, innerKeyed)
				continue
			case fa.lentTo(fa.events[h], fa.events[w]):
				// Lent, but past maxLentPairs: the callee's own
				// copy stands.
				fa.a.judgeLent(p.Lent, false)
			case fa.callbackOnly() && fa.events[h].Hold != HoldNone:
				// A callback's pairs are drawn where it runs, with
				// what its runner holds first (a gate it takes
				// before it runs the callback): passed on as they
				// came.
				fa.pair(Pair{Held: h, Wanted: w, Lent: p.Lent}, st, inner, innerKeyed)
				continue
			case !fa.gatedHere(h, w, mapped, st):
				// Nothing this function holds first stands in front
				// of the pair: the callee's own copy says all there
				// is (drawing it again at every caller of a helper
				// would cost edges for nothing).
				fa.a.judgeLent(p.Lent, false)
				continue
			default:
				// Drawn here, where the transaction is begun, with
				// what it holds first: the callee's own copy is
				// withdrawn.
				fa.a.judgeLent(p.Lent, true)
			}
		}
		if p.Drawn && fa.events[h].Lock.Class == sum.Events[p.Held].Lock.Class.Concrete() &&
			fa.events[w].Lock.Class == sum.Events[p.Wanted].Lock.Class.Concrete() {
			continue // the callee drew this very edge
		}
		if fa.events[h].Hold != HoldNone && !fa.alreadyHeld(fa.events[w], sortedKeys(st.held)) {
			// As for any request, one this function already holds in a
			// covering mode waits for nothing.
			inner, innerKeyed := mapGates(p, mapped)
			fa.edge(h, w, fa.events[w], false, st, inner, innerKeyed)
		}
	}
	for i, inv := range sum.Invokes {
		fa.applyInvoke(site, fmt.Sprintf("%s.%d", scope, i), inv, mapped, args, bind, st)
	}
	for _, r := range sum.Releases {
		h := fa.mapHandle(Handle{Ref: r.Ref, Conn: r.Ref}, site, scope, bind)
		if !r.Conn {
			fa.endTx(h, st)
			continue
		}
		// What the callee surely unlocked before it gave the
		// connection back is off before the release; its other
		// unlocks are applied after it, where they come too late.
		for _, u := range r.Unlocked {
			fa.applyUnlock(site, scope, u, args, bind, st)
		}
		fa.releaseConn(site, h, r.Pooled, st, fa.releasePath(site, r.At), bodyClosure(site, fa.fn))
	}
	for _, u := range sum.Unlocks {
		fa.applyUnlock(site, scope, u, args, bind, st)
	}
	for _, i := range sum.Exit {
		if i < len(mapped) && fa.events[mapped[i]].Hold != HoldNone && !fa.callerHoldsRow(mapped[i], st, false) {
			// Rows held already in a covering mode, by the same
			// values (a trip locked FOR UPDATE, then a helper's
			// foreign-key check on it), are no lock of their own.
			fa.hold(st, mapped[i], slices.Contains(sum.Surely, i))
		}
	}
}

// mapGates returns the caller's copies (mapped) of the events that stand in
// front of the callee's pair p: its gates and keyed gates.
func mapGates(p Pair, mapped []int) (inner []int, innerKeyed []KeyedRef) {
	for _, g := range p.Gates {
		if g < len(mapped) {
			inner = append(inner, mapped[g])
		}
	}
	for _, k := range p.Keyed {
		if k.Event < len(mapped) {
			innerKeyed = append(innerKeyed, KeyedRef{Event: mapped[k.Event], Gate: k.Gate})
		}
	}
	return inner, innerKeyed
}

// gatedHere reports whether the function holds, in front of the pair of
// events h and w that a call copied from its callee (whose copies are
// mapped), a gate or keyed gate of its own: one the callee's own edge does
// not have.
func (fa *fnAnalysis) gatedHere(h, w int, mapped []int, st *state) bool {
	for _, g := range fa.gateEvents(h, w, st) {
		if !slices.Contains(mapped, g) {
			return true
		}
	}
	for _, k := range fa.keyedGates(h, w, st) {
		if !slices.Contains(mapped, k.Event) {
			return true
		}
	}
	return false
}

// applyUnlock applies a callee's unlock u at a call site.
func (fa *fnAnalysis) applyUnlock(site ssa.Instruction, scope string, u Unlock, args []ssa.Value, bind binder, st *state) {
	h := fa.mapHandle(Handle{Ref: u.Conn, Conn: u.Conn}, site, scope, bind)
	// An unlock of a key unknown before run time (AdvisorySite with
	// no site) stays one; any other key is bound like a lock's.
	class := u.Class
	if class.Kind != lockgraph.AdvisorySite {
		class = fa.bindClass(class, args)
	}
	fa.unlock(h, class, st)
}

// releasePath is the path from this call site to a callee's release at
// (Release.At), bounded as events' paths are.
func (fa *fnAnalysis) releasePath(site ssa.Instruction, at []lockgraph.Frame) []lockgraph.Frame {
	if len(at) == 0 {
		return nil
	}
	out := append([]lockgraph.Frame{fa.frame(site.Pos(), "calls "+at[0].Func)}, at...)
	if len(out) > maxPathDepth {
		out = append(out[:maxPathDepth-1:maxPathDepth-1], out[len(out)-1])
	}
	return out
}

// bodyClosure reports whether the call site calls a closure written in
// fn's own body (defer func() { ... }()): what it does is in fn's file.
func bodyClosure(site ssa.Instruction, fn *ssa.Function) bool {
	call, ok := site.(ssa.CallInstruction)
	if !ok {
		return false
	}
	callee := call.Common().StaticCallee()
	return callee != nil && callee.Parent() == fn
}

// mapEvent creates (once) the caller's copy of callee event i.
//
// vals are the callee's parameter values at the site, which bind the keys
// of its parametric advisory locks.
func (fa *fnAnalysis) mapEvent(site ssa.Instruction, scope string, i int, ev *Event, vals []ssa.Value, bind binder) int {
	key := eventKey{site, -1, i, scope}
	if j, ok := fa.eventIdx[key]; ok {
		return j
	}
	h := fa.mapHandle(Handle{Ref: ev.Tx, Kind: ev.TxKind, Conn: ev.Conn}, site, scope, bind)
	out := &Event{
		Lock: ev.Lock, Tx: h.Ref, TxKind: h.Kind, Conn: h.Conn, Hold: ev.Hold,
		Stmt: fmt.Sprintf("%d%s/%s", fa.instrID(site), scope, ev.Stmt), Try: ev.Try,
	}
	out.Lock.Class = fa.bindClass(ev.Lock.Class, vals)
	if out.TxKind == 0 {
		out.TxKind = ev.TxKind
	}
	if ev.Hold == HoldCond {
		switch h.Kind {
		case sqlsite.Maybe:
			if escapes(h.Ref) {
				out.Hold = HoldCond
			} else {
				out.Hold = HoldNone
			}
		case sqlsite.Tx:
			out.Hold = HoldTx
		default:
			out.Hold = HoldNone
		}
	}
	if _, _, param := ev.Tx.param(); param && h.Kind == sqlsite.Pool && (ev.Hold == HoldTx || ev.Hold == HoldCond) {
		// The callee's transaction parameter is bound to no
		// transaction of the caller's (a nil, which resolves to the
		// pool): nothing it runs stays held here.
		out.Hold = HoldNone
	}
	callee := ""
	if len(ev.Path) > 0 {
		callee = ev.Path[0].Func
	}
	what := "calls " + callee
	if scope != "" {
		// A function value the called function invokes.
		if call, ok := site.(ssa.CallInstruction); ok {
			if f := call.Common().StaticCallee(); f != nil {
				what = "calls " + FuncName(f) + ", which calls " + callee
				if fa.closure != "" {
					// A closure the factory returned, analysed as a
					// root (factory.go).
					what = FuncName(f) + " returns " + fa.closure + ", which calls " + callee
				}
			}
		}
	}
	out.Path = append([]lockgraph.Frame{fa.frame(site.Pos(), what)}, ev.Path...)
	if fa.fn.Synthetic != "" && fa.fn.Synthetic != rangeYield && len(ev.Path) > 0 || loopBody(site) && scope == "" {
		// A wrapper the compiler made (the closure of a method value
		// h.book) only calls the method, and a range-over-func loop's
		// body is this function's own code (rangefunc.go): neither
		// adds a frame of its own.
		out.Path = slices.Clone(ev.Path)
	}
	if len(out.Path) > maxPathDepth {
		out.Path = append(out.Path[:maxPathDepth-1:maxPathDepth-1], out.Path[len(out.Path)-1])
	}
	if ev.Conn == fresh {
		// The callee's own pool statement: reported there if it leaks.
		i := len(fa.events)
		fa.events = append(fa.events, out)
		fa.eventPos = append(fa.eventPos, site.Pos())
		fa.eventIdx[key] = i
		return i
	}
	return fa.addEvent(key, out, site)
}

// applyInvoke applies, at a call site, the summary of the function value
// that the callee invokes through its parameter inv.Param: the callback's
// parameters are the handles the callee passes it (mapped to this
// function's terms), its free variables the closure's bindings here.
// Locks it leaves held on a handle private to the callee (a transaction the
// callee begins and ends around the callback) do not outlive the call.
//
// mapped gives this function's copies of the callee's events: those the
// callee holds at the invocation are held while the callback's locks are
// requested.
func (fa *fnAnalysis) applyInvoke(site ssa.Instruction, scope string, inv Invoke, mapped []int, args []ssa.Value, bind binder, st *state) {
	if inv.Param < 0 || inv.Param >= len(args) || args[inv.Param] == nil {
		return
	}
	switch fn := funcSource(args[inv.Param]).(type) {
	case *ssa.Parameter, *ssa.FreeVar:
		// The callback is this function's own parameter (a runner
		// that hands its callback on to pgx.BeginFunc's): this
		// function invokes it, with the handles the callee passes,
		// while what the callee holds is held.
		flows := make([]Flow, len(inv.Args))
		for i, a := range inv.Args {
			flows[i] = Flow{Result: a.Result, Path: a.Path, Handle: fa.mapHandle(a.Handle, site, "", bind)}
		}
		lent := fa.lend(inv.Held, inv.Surely, mapped, st)
		fa.recordInvoke(fn, flows, st)
		fa.unlend(lent, st)
		return
	}
	callee, bindings := funcValue(args[inv.Param])
	if callee == nil || slices.Contains(fa.applying, callee) {
		return
	}
	sum := fa.a.summaryOf(callee)
	if sum.Empty() {
		return
	}
	fa.applying = append(fa.applying, callee)
	defer func() { fa.applying = fa.applying[:len(fa.applying)-1] }()
	nparams := numParams(callee)
	cbind := func(i int, path []string) (Handle, bool) {
		if i >= nparams {
			return fa.bindArg(nil, bindings, nparams, i, path)
		}
		want := strings.Join(path, ".")
		for _, a := range inv.Args {
			if a.Result == i && a.Path == want {
				return fa.mapHandle(a.Handle, site, "", bind), true
			}
		}
		return Handle{}, false
	}
	before := maps.Clone(st.held)
	lent := fa.lend(inv.Held, inv.Surely, mapped, st)
	fa.enter(callee, site, st)
	fa.apply(site, scope, sum, calleeValues(nil, bindings, nparams), cbind, st)
	fa.unlend(lent, st)
	private := fmt.Sprintf("C%d", fa.instrID(site))
	for i := range st.held {
		if before[i] {
			continue
		}
		// A transaction the callee began and ended around the
		// callback releases its locks; a session lock stays with the
		// connection unless that is the callee's own too.
		e := fa.events[i]
		if privateRef(e.Tx, private) && (e.Hold == HoldTx || privateRef(e.Conn, private)) {
			st.drop(i)
		}
	}
}

// applySink runs, at a call site, the SQL text the caller passes for the
// callee's parameter k.Param, on the callee's handle mapped here, while the
// locks the callee holds at that point are held. unit tells apart the
// statements of the callee's several sinks at one call site.
func (fa *fnAnalysis) applySink(site ssa.Instruction, unit string, k Sink, mapped []int, args []ssa.Value, bind binder, st *state) {
	if k.Template == nil && (k.Param >= len(args) || args[k.Param] == nil) {
		return
	}
	scope, _, _ := strings.Cut(unit, "#sink")
	h := fa.mapHandle(k.Handle, site, scope, bind)
	var params ssa.Value
	if k.Args >= 0 && k.Args < len(args) {
		params = args[k.Args]
	}
	lent := fa.lend(k.Held, k.Surely, mapped, st)
	fa.via, fa.unit = k.Func, unit
	if params == nil {
		// The callee's own argument list, of its parameters: this
		// call's values key the statement.
		fa.builtKeys = sinkKeys(k, args)
	}
	fa.runText(site, h, fa.sinkText(k, args), params, st, k.Batch)
	fa.via, fa.unit, fa.builtKeys = "", "", nil
	fa.unlend(lent, st)
}

// lend marks as held, for the duration of a callback or of SQL a callee runs
// for its caller, this function's copies (mapped) of the callee events that
// the callee holds at that moment; it returns those it added.
func (fa *fnAnalysis) lend(held, surely, mapped []int, st *state) []int {
	var lent []int
	for _, h := range held {
		if h < len(mapped) && fa.events[mapped[h]].Hold != HoldNone && !st.held[mapped[h]] {
			fa.hold(st, mapped[h], slices.Contains(surely, h))
			lent = append(lent, mapped[h])
		}
	}
	return lent
}

// unlend undoes lend: whether the callee still holds those locks when it
// returns is its Exit's business.
func (fa *fnAnalysis) unlend(lent []int, st *state) {
	for _, h := range lent {
		st.drop(h)
	}
}

// privateRef reports whether r names a handle a callee created at the call
// site whose handles are prefixed private ("C3"): "C3/L0", "C3.1/L0" or
// "C3#impl0/L0", not "C31/L0".
func privateRef(r Ref, private string) bool {
	rest, ok := strings.CutPrefix(string(r), private)
	return ok && rest != "" && (rest[0] == '/' || rest[0] == '.' || rest[0] == '#')
}
