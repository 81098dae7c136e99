package lockseq

import (
	"cmp"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// Gates held on entry.
//
// A function draws its lock-order edges with the gates it sees itself: the
// locks it surely holds from before the first lock of a pair until it
// requests the second. A helper that inverts an order behind a gate its
// callers take (lock the tenant, then call applyTransfer(ctx, tx)) sees
// none. When every call of the helper is known (it is not exported, and
// nothing but calls in this package reach it), the locks that every caller
// surely holds at the call, and still holds when the helper returns, are
// held on entry to it: they stand in front of each of its pairs as they do
// in front of the caller's own. They flow on to the helper's helpers, and
// silence the row-order rules in the helper as a guard the helper took
// itself would (see underGate).

// entryGate is a lock surely held at a call, in the terms of the lock
// graph.
type entryGate struct {
	Lock lockgraph.Lock
	// Guard is set when the lock serialises the executions of the callee
	// for the row-order rules (see underGate): an exclusive advisory or
	// table lock, or a row with a constant key.
	Guard bool
}

// entryKey names one call of callee: the instruction that calls it (or that
// hands it, as a callback, to a runner that runs it).
type entryKey struct {
	callee *ssa.Function
	site   ssa.Instruction
}

// enter records the locks surely held where this function calls callee at
// site (a runner's call for a callback, with what the runner lends it): the
// intersection over every visit of the site.
func (fa *fnAnalysis) enter(callee *ssa.Function, site ssa.Instruction, st *state) {
	if callee.Origin() != nil {
		callee = callee.Origin()
	}
	fa.entered, fa.enteredSum = entryKey{}, nil
	if callee.Parent() == nil && (callee.Object() == nil || callee.Object().Exported()) {
		return // not every call of it is known (see callSites)
	}
	fa.entered, fa.enteredSum = entryKey{callee, site}, fa.a.sums[callee]
	var gates []entryGate
	for _, g := range sortedKeys(st.must) {
		e := fa.events[g]
		if !st.held[g] || e.Hold == HoldNone || e.Hold == HoldCond || !e.Lock.Waits && !e.Try || !e.strictGate() {
			// HoldCond: held only if this function's caller passes a
			// transaction, which the callee cannot count on.
			continue
		}
		l := e.Lock
		l.Class = l.Class.Concrete()
		guard := lockmodel.ModesConflict(l.Mode, l.Mode) && (l.Class.IsAdvisory() || l.Class.IsTable() ||
			l.Class.IsRow() && e.Rows.KeyColumn != "" && e.Rows.KeyParam == 0 && !e.Rows.Multi)
		if i := slices.IndexFunc(gates, func(x entryGate) bool { return x.Lock == l }); i >= 0 {
			gates[i].Guard = gates[i].Guard || guard
			continue
		}
		gates = append(gates, entryGate{Lock: l, Guard: guard})
	}
	if fa.a.entries == nil {
		fa.a.entries = map[entryKey][]entryGate{}
	}
	key := entryKey{callee, site}
	if old, ok := fa.a.entries[key]; ok {
		gates = intersectGates(old, gates)
	}
	fa.a.entries[key] = gates
}

// intersectGates keeps the gates of a that b holds too (a guard where both
// say so).
func intersectGates(a, b []entryGate) []entryGate {
	var out []entryGate
	for _, g := range a {
		if i := slices.IndexFunc(b, func(h entryGate) bool { return h.Lock == g.Lock }); i >= 0 {
			out = append(out, entryGate{Lock: g.Lock, Guard: g.Guard && b[i].Guard})
		}
	}
	return out
}

// unionGates adds to a the gates of b it lacks.
func unionGates(a, b []entryGate) []entryGate {
	out := slices.Clone(a)
	for _, g := range b {
		if i := slices.IndexFunc(out, func(h entryGate) bool { return h.Lock == g.Lock }); i >= 0 {
			out[i].Guard = out[i].Guard || g.Guard
			continue
		}
		out = append(out, g)
	}
	return out
}

// GateByCallers adds to the edges and row findings of the package's
// functions (funcs, closures included) the gates held on entry to them: the
// locks every call of the function surely holds, where every call is known.
// Run it once all of funcs are analysed.
func (a *Analysis) GateByCallers(funcs []*ssa.Function) {
	if len(a.entries) == 0 {
		return
	}
	sites, _ := a.callSites(funcs)
	// The greatest fixpoint: a function starts with every gate (top) and
	// loses those that some call does not hold. A caller's own entry gates
	// count at its calls, unless it may end a transaction or unlock a
	// session lock of its callers on the way (it releases nothing of
	// theirs: its summary says so).
	entry := map[*ssa.Function][]entryGate{}
	top := map[*ssa.Function]bool{}
	for fn := range sites {
		top[fn] = true
	}
	passes := func(fn *ssa.Function) bool {
		s := a.sums[fn]
		return s != nil && len(s.Releases) == 0 && len(s.Unlocks) == 0
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range funcs {
			calls, closed := sites[fn]
			if !closed {
				continue
			}
			acc, stillTop := entryAt(calls, fn, a.entries, entry, top, passes)
			if stillTop {
				continue
			}
			if top[fn] || !equalGates(acc, entry[fn]) {
				top[fn], entry[fn], changed = false, acc, true
			}
		}
	}
	// What no call outside them reaches (functions that only call each
	// other) holds nothing on entry.
	for fn := range top {
		if top[fn] {
			delete(entry, fn)
		}
	}
	for _, e := range a.Edges {
		fn := a.edgeFn[e]
		gates := entry[fn]
		if len(gates) == 0 || !passes(fn) {
			continue
		}
		for _, g := range gates {
			if g.Lock.Class != e.Held.Class.Concrete() && g.Lock.Class != e.Wanted.Class.Concrete() && !slices.Contains(e.Gates, g.Lock) {
				e.Gates = append(e.Gates, g.Lock)
			}
		}
		slices.SortFunc(e.Gates, func(x, y lockgraph.Lock) int {
			return cmp.Or(lockgraph.CompareClasses(x.Class, y.Class), cmp.Compare(x.Mode, y.Mode))
		})
	}
	a.Rows = slices.DeleteFunc(a.Rows, func(f RowFinding) bool {
		if !passes(f.fn) {
			return false
		}
		if f.Rule == CallerOrder && a.heldByCallers(f, sites[f.fn]) {
			return true
		}
		return slices.ContainsFunc(entry[f.fn], func(g entryGate) bool {
			return g.Guard && g.Lock.Class != f.Lock.Class.Concrete()
		})
	})
}

// heldByCallers reports whether both rows of a caller-row-order finding are
// held already at every one of calls, the calls of the finding's function
// (see recordHeldRow).
func (a *Analysis) heldByCallers(f RowFinding, calls []ssa.Instruction) bool {
	if s := a.sums[f.fn]; len(calls) == 0 || f.event < 0 || f.first < 0 || s == nil || len(s.Events) != f.events {
		// The summary merged events: its indices are not the
		// function's.
		return false
	}
	for _, site := range calls {
		m := a.heldRows[entryKey{f.fn, site}]
		if !m[f.event] || !m[f.first] {
			return false
		}
	}
	return true
}

// entryAt returns the gates that every one of calls (of fn) holds: each
// call's own, and its caller's entry gates where the caller passes them on.
// stillTop is set when every call is from a function whose entry gates are
// not known yet (top).
func entryAt(calls []ssa.Instruction, fn *ssa.Function, recorded map[entryKey][]entryGate, entry map[*ssa.Function][]entryGate,
	top map[*ssa.Function]bool, passes func(*ssa.Function) bool) (acc []entryGate, stillTop bool) {
	first := true
	for _, site := range calls {
		local, ok := recorded[entryKey{fn, site}]
		if !ok {
			return nil, false // a call the analysis did not apply
		}
		caller := site.Parent()
		here := local
		if caller != nil && passes(caller) {
			if top[caller] {
				continue // holds every gate so far
			}
			here = unionGates(local, entry[caller])
		}
		if first {
			acc, first = slices.Clone(here), false
		} else {
			acc = intersectGates(acc, here)
		}
	}
	return acc, first
}

// equalGates reports whether two lists hold the same gates.
func equalGates(a, b []entryGate) bool {
	return len(a) == len(b) && len(intersectGates(a, b)) == len(a) &&
		!slices.ContainsFunc(a, func(g entryGate) bool {
			return !slices.Contains(b, g)
		})
}

// packageCalls is what callSites found in the package's functions.
type packageCalls struct {
	sites  map[*ssa.Function][]ssa.Instruction
	stored map[*ssa.Function]bool
}

// callSites returns callSites(funcs), walking the package's functions
// once: funcs is the package's functions, the same at every call.
func (a *Analysis) callSites(funcs []*ssa.Function) (map[*ssa.Function][]ssa.Instruction, map[*ssa.Function]bool) {
	if a.calls == nil {
		sites, stored := callSites(funcs)
		a.calls = &packageCalls{sites, stored}
	}
	return a.calls.sites, a.calls.stored
}

// callSites lists, for each of funcs whose every call is known, the
// instructions that call it: calls of a function that is not exported and
// that nothing but calls names (no function value, method value, go
// statement or call through an interface), and, for a closure, the calls
// it is used in (called there, or handed to a function there): such a site
// counts only where the analysis applied the closure at it (a runner that
// runs it, see enter), and any other use leaves the closure out. Other
// functions are left out: some of their calls may hold nothing.
//
// stored holds the functions funcs use as values otherwise than by
// handing them to a call (a runner runs them there, and its callers apply
// them): kept in a variable or a field, which anything may call.
func callSites(funcs []*ssa.Function) (sites map[*ssa.Function][]ssa.Instruction, stored map[*ssa.Function]bool) {
	open := map[*ssa.Function]bool{}
	stored = map[*ssa.Function]bool{}
	methods := map[string]bool{} // names of methods called through interfaces
	sites = map[*ssa.Function][]ssa.Instruction{}
	origin := func(f *ssa.Function) *ssa.Function {
		if f.Origin() != nil {
			return f.Origin()
		}
		return f
	}
	for _, fn := range withInit(funcs) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok && c.Common().IsInvoke() {
					methods[c.Common().Method.Name()] = true
				}
				var ops [8]*ssa.Value
				for i, op := range instr.Operands(ops[:0]) {
					if op == nil || *op == nil {
						continue
					}
					if v, ok := (*op).(*ssa.Function); ok {
						if _, ok := instr.(*ssa.MakeClosure); ok && i == 0 {
							continue // the closure made, below
						}
						if staticCall(instr, i, v) || v.Parent() != nil && isCallArg(instr, i) {
							// A call, or an anonymous function handed
							// to one (a runner may run it there).
							sites[origin(v)] = append(sites[origin(v)], instr)
							continue
						}
						open[origin(v)] = true
						if !isCallArg(instr, i) {
							stored[origin(v)] = true
						}
						if v.Synthetic != "" && v.Object() != nil {
							// A method value or expression: a wrapper
							// that calls the method.
							methods[v.Object().Name()] = true
						}
					}
				}
				if mc, ok := instr.(*ssa.MakeClosure); ok {
					fn := origin(mc.Fn.(*ssa.Function))
					refs := mc.Referrers()
					if refs == nil {
						open[fn] = true
						continue
					}
					for _, ref := range *refs {
						if _, ok := ref.(*ssa.Call); !ok {
							// Kept, or run at the end (a defer):
							// not followed.
							open[fn] = true
							break
						}
						sites[fn] = append(sites[fn], ref)
					}
				}
			}
		}
	}
	for fn := range sites {
		switch {
		case open[fn]:
		case fn.Parent() != nil:
			continue
		case fn.Object() == nil || fn.Object().Exported():
		case fn.Signature.Recv() != nil && methods[fn.Name()]:
		default:
			continue
		}
		delete(sites, fn)
	}
	return sites, stored
}

// staticCall reports whether operand i of instr, the function v, is the
// function a call or defer statement calls.
func staticCall(instr ssa.Instruction, i int, v *ssa.Function) bool {
	switch c := instr.(type) {
	case *ssa.Call:
		return i == 0 && c.Call.Value == v
	case *ssa.Defer:
		return i == 0 && c.Call.Value == v
	}
	return false
}

// isCallArg reports whether operand i of instr is an argument of a call.
func isCallArg(instr ssa.Instruction, i int) bool {
	_, ok := instr.(*ssa.Call)
	return ok && i > 0
}

// withInit adds to funcs the package's initialisers (the package's init,
// which evaluates its variables, and init functions) and their closures:
// var Pourer = pour names pour there.
func withInit(funcs []*ssa.Function) []*ssa.Function {
	if len(funcs) == 0 || funcs[0].Pkg == nil {
		return funcs
	}
	seen := map[*ssa.Function]bool{}
	for _, fn := range funcs {
		seen[fn] = true
	}
	out := slices.Clone(funcs)
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if seen[fn] {
			return
		}
		seen[fn] = true
		out = append(out, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, m := range funcs[0].Pkg.Members {
		if fn, ok := m.(*ssa.Function); ok {
			add(fn)
		}
	}
	return out
}

// Rows held on entry.
//
// A helper that locks two rows of one table in the order its caller passes
// the keys (merge(ctx, from, into)) deadlocks with itself only if its rows
// are free when it asks for them. When every call of it is known and every
// caller has already locked both rows, on the same transaction and in a
// mode that covers the helper's, keyed by exactly the values it passes (the
// same Go values, or min(a, b) and max(a, b) for a and b), the helper waits
// for nothing: the order that counts is the caller's, which the caller's
// own analysis checks. heldRows records, at each call, which of the
// callee's row locks are held so; GateByCallers withdraws the callee's
// caller-row-order findings whose two locks are held at every call.

// recordHeldRow records whether the row of copy i of the callee's event k
// (ev), applied at the call being entered, is surely held by this function
// at the call (st): on every visit of the call.
func (fa *fnAnalysis) recordHeldRow(site ssa.Instruction, i int, ev *Event, k int, st *state) {
	sum := fa.enteredSum
	if sum == nil || fa.entered.site != site || k >= len(sum.Events) || &sum.Events[k] != ev {
		return // not a call enter saw (a call through an interface)
	}
	held := fa.callerHoldsRow(i, st, false)
	if fa.a.heldRows == nil {
		fa.a.heldRows = map[entryKey]map[int]bool{}
	}
	m := fa.a.heldRows[fa.entered]
	if m == nil {
		m = map[int]bool{}
		fa.a.heldRows[fa.entered] = m
	}
	if old, seen := m[k]; seen {
		held = held && old
	}
	m[k] = held
}

// callerHoldsRow reports whether the single row that copy i of a callee's
// event locks is surely held already in st: locked on the same transaction
// by a lock of the same table that covers its mode, keyed in the same
// column by the same value, or by min and max of that value and another.
//
// condOK counts the rows this function holds on its caller's handle
// (HoldCond) when the request is on the same one: held if that handle is
// a transaction, and if it is not, the request holds nothing either.
func (fa *fnAnalysis) callerHoldsRow(i int, st *state, condOK bool) bool {
	out := fa.events[i]
	if !out.Lock.Class.IsRow() || out.Rows.Multi || out.Rows.KeyColumn == "" {
		return false
	}
	want, ok := fa.keyValOf(i, out.Rows.KeyColumn)
	if !ok {
		return false
	}
	// The values keying the rows held in a mode that covers the request.
	var vals []keyVal
	for _, g := range sortedKeys(st.must) {
		O := fa.events[g]
		sameCond := condOK && out.Hold == HoldCond && O.Tx == out.Tx && O.Tx != ""
		cond := O.Hold == HoldCond && !sameCond
		if g == i || !st.held[g] || O.Hold == HoldNone || cond || !O.Lock.Waits && !O.Try ||
			O.Lock.Class.Concrete() != out.Lock.Class.Concrete() || !sameConn(O.Conn, out.Conn) && (O.Tx == "" || O.Tx != out.Tx) ||
			!lockgraph.Covers(O.Lock.Mode, out.Lock.Mode) || O.Rows.GateShape == "" || gateParams(O.Rows.RowSet) != 1 {
			// The predicate must be the key's equality alone, or its
			// = ANY of one list: the rows it locks are exactly those
			// its values name.
			continue
		}
		if O.Rows.Multi {
			// key = ANY(a slice literal): the rows of its elements.
			for _, kv := range fa.keyVals[g] {
				if kv.col == out.Rows.KeyColumn && kv.set {
					for _, el := range sliceLiteralElems(kv.v) {
						vals = append(vals, fa.argVal(el))
					}
				}
			}
			continue
		}
		if O.Rows.KeyColumn != out.Rows.KeyColumn {
			continue
		}
		if kv, ok := fa.keyValOf(g, O.Rows.KeyColumn); ok {
			vals = append(vals, kv)
		}
	}
	same := func(a, b keyVal) bool {
		return a.key != "" && a.key == b.key || a.v != nil && b.v != nil && fa.sameLoad(a.v, b.v)
	}
	for _, h := range vals {
		if same(h, want) {
			return true
		}
	}
	// min(a, b) and max(a, b) held: the rows of a and of b are.
	for _, lo := range vals {
		x, y, ok := minMaxArgs(lo.v, "min")
		if !ok || !same(fa.argVal(x), want) && !same(fa.argVal(y), want) {
			continue
		}
		for _, hi := range vals {
			p, q, ok := minMaxArgs(hi.v, "max")
			if !ok {
				continue
			}
			if same(fa.argVal(x), fa.argVal(p)) && same(fa.argVal(y), fa.argVal(q)) ||
				same(fa.argVal(x), fa.argVal(q)) && same(fa.argVal(y), fa.argVal(p)) {
				return true
			}
		}
	}
	return false
}

// sliceLiteralElems returns the elements of a slice literal
// ([]int64{from, to}): the values stored into the array it slices, nil for
// any other value or when the array is written elsewhere too.
func sliceLiteralElems(v ssa.Value) []ssa.Value {
	sl, ok := stripConversions(v).(*ssa.Slice)
	if !ok {
		return nil
	}
	arr, ok := sl.X.(*ssa.Alloc)
	if !ok || arr.Referrers() == nil {
		return nil
	}
	var elems []ssa.Value
	for _, ref := range *arr.Referrers() {
		switch r := ref.(type) {
		case *ssa.Slice:
		case *ssa.IndexAddr:
			if r.Referrers() == nil {
				return nil
			}
			for _, w := range *r.Referrers() {
				st, ok := w.(*ssa.Store)
				if !ok || st.Addr != r {
					return nil
				}
				elems = append(elems, st.Val)
			}
		default:
			return nil
		}
	}
	return elems
}

// keyValOf returns the value event ev's predicate compares column col with
// for equality.
func (fa *fnAnalysis) keyValOf(ev int, col string) (keyVal, bool) {
	for _, kv := range fa.keyVals[ev] {
		if kv.col == col && !kv.set && (kv.key != "" || kv.v != nil) {
			return kv, true
		}
	}
	return keyVal{}, false
}

// argVal names an argument of min or max as keyVal does.
func (fa *fnAnalysis) argVal(v ssa.Value) keyVal {
	return keyVal{key: fa.valueKey(v), v: v}
}

// minMaxArgs returns the two arguments of v when it is a call of the
// builtin name (min or max) with two.
func minMaxArgs(v ssa.Value, name string) (x, y ssa.Value, ok bool) {
	c, isCall := stripConversions(v).(*ssa.Call)
	if !isCall || len(c.Call.Args) != 2 {
		return nil, nil, false
	}
	if b, isBuiltin := c.Call.Value.(*ssa.Builtin); !isBuiltin || b.Name() != name {
		return nil, nil, false
	}
	return c.Call.Args[0], c.Call.Args[1], true
}
