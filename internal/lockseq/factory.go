package lockseq

import (
	"fmt"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// Function values made by a factory.
//
// A middleware factory (Transactional(next) http.HandlerFunc) returns a
// closure that begins a transaction, puts it in the request's context and
// calls next; the handlers take their statements' transaction from that
// context. The closure's own summary can only say that it invokes its free
// variable next: what next is, the factory's caller says (h.book, a method
// value). The factory's summary therefore carries the closures it returns
// (Closure), with the factory's parameters their free variables are bound
// to. Its caller applies a closure where it calls the returned value right
// away (Tx(fn)(ctx)), and otherwise, where the value escapes (registered
// with a router, kept in a struct, handed to a server that calls it later),
// analyses it as a root of its own, run with nothing held: that is how the
// server runs it.

// Closure is a function value that the function returns (result Result)
// made from one of its closures.
type Closure struct {
	Result int
	// Name is the closure's name, for paths.
	Name string
	// Sum is the closure's summary; its parameters are numbered as any
	// closure's: its NParams parameters, then its free variables.
	Sum     *Summary
	NParams int
	// Free gives, for each free variable of the closure, the parameter
	// of the function (numbered as summaries number them) whose value it
	// captures, or -1 when it captures something else (a local).
	Free []int
}

// returnedClosures records the closures the function returns, with the
// parameters their free variables capture (see Closure).
func (fa *fnAnalysis) returnedClosures() {
	seen := map[string]bool{}
	for _, b := range fa.fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for r, v := range ret.Results {
			mc, ok := closureOf(spilledResult(ret, v))
			if !ok {
				continue
			}
			fn, _ := mc.Fn.(*ssa.Function)
			if fn == nil || seen[fmt.Sprint(r, fn)] {
				continue
			}
			seen[fmt.Sprint(r, fn)] = true
			sum := fa.a.Summary(fn)
			if sum.Empty() {
				continue
			}
			cl := Closure{Result: r, Name: FuncName(fn), Sum: sum, NParams: len(fn.Params)}
			for _, bv := range mc.Bindings {
				cl.Free = append(cl.Free, fa.capturedParam(bv))
			}
			fa.sum.Closures = append(fa.sum.Closures, cl)
		}
	}
}

// closureOf returns the closure a function value is made from, through the
// conversions that keep it (http.HandlerFunc(func...), a func stored in an
// interface).
func closureOf(v ssa.Value) (*ssa.MakeClosure, bool) {
	mc, ok := stripConversions(v).(*ssa.MakeClosure)
	return mc, ok
}

// capturedParam returns the parameter (or, in a closure, free variable) of
// the function whose value a closure's binding captures: the parameter
// itself, or the cell it was copied to, or -1.
func (fa *fnAnalysis) capturedParam(v ssa.Value) int {
	if alloc, ok := v.(*ssa.Alloc); ok {
		st := onlyStore(alloc, nil)
		if st == nil {
			return -1
		}
		v = st.Val
	}
	v = funcSource(v)
	switch x := v.(type) {
	case *ssa.Parameter:
		return slices.Index(fa.fn.Params, x)
	case *ssa.FreeVar:
		if i := slices.Index(fa.fn.FreeVars, x); i >= 0 {
			return len(fa.fn.Params) + i
		}
	}
	return -1
}

// closureBindings returns the values at the call site c of a factory that
// the closure's free variables capture (nil where unknown).
func closureBindings(cl Closure, c *ssa.CallCommon, bindings []ssa.Value, nparams int) []ssa.Value {
	vals := calleeValues(c.Args, bindings, nparams)
	out := make([]ssa.Value, len(cl.Free))
	for i, p := range cl.Free {
		if p >= 0 && p < len(vals) {
			out[i] = vals[p]
		}
	}
	return out
}

// factoryResult recognises a function value that is result r of a call of
// a function whose summary says it returns a closure there: the closure
// and the call.
func (fa *fnAnalysis) factoryResult(v ssa.Value) (*Closure, *ssa.Call) {
	r := 0
	if x, ok := v.(*ssa.Extract); ok {
		v, r = x.Tuple, x.Index
	}
	call, ok := v.(*ssa.Call)
	if !ok || call.Call.IsInvoke() {
		return nil, nil
	}
	callee, _ := funcValue(call.Call.Value)
	if callee == nil {
		return nil, nil
	}
	sum := fa.a.summaryOf(callee)
	if sum == nil {
		return nil, nil
	}
	for i := range sum.Closures {
		if sum.Closures[i].Result == r {
			return &sum.Closures[i], call
		}
	}
	return nil, nil
}

// callReturned applies, at a call of a function value that a factory call
// returned (Tx(fn)(ctx)), the summary of the closure the factory returns,
// with its free variables bound to what the factory was given. It reports
// whether the value was such a closure.
func (fa *fnAnalysis) callReturned(site ssa.Instruction, c *ssa.CallCommon, st *state) bool {
	cl, fc := fa.factoryResult(funcSource(c.Value))
	if cl == nil {
		return false
	}
	fa.applyClosure(site, cl, c.Args, fc, st)
	return true
}

// applyClosure applies the summary of a closure a factory call fc returned,
// called with args (nil: arguments unknown).
func (fa *fnAnalysis) applyClosure(site ssa.Instruction, cl *Closure, args []ssa.Value, fc *ssa.Call, st *state) {
	factory, bindings := funcValue(fc.Call.Value)
	free := closureBindings(*cl, &fc.Call, bindings, numParams(factory))
	bind := func(i int, path []string) (Handle, bool) {
		return fa.bindArg(args, free, cl.NParams, i, path)
	}
	fa.apply(site, "", cl.Sum, calleeValues(args, free, cl.NParams), bind, st)
}

// escapingClosures analyses, at a call of a factory, each closure it returns
// that the function does not only call right away (see callReturned) as a
// root of its own: the router, server or struct it goes to calls it later,
// with nothing of this function held. Its lock-order edges and row findings
// are drawn in a separate analysis of this function, so that none of its
// locks enters this function's summary: they are not taken when this
// function runs.
func (fa *fnAnalysis) escapingClosures(site ssa.Instruction, sum *Summary) {
	call, ok := site.(*ssa.Call)
	if !ok || len(sum.Closures) == 0 {
		return
	}
	for i := range sum.Closures {
		cl := &sum.Closures[i]
		if !leaves(call, cl.Result) {
			continue
		}
		key := instanceKey{site, i}
		if fa.a.instances[key] {
			continue // once, not on each round of the fixpoint
		}
		if fa.a.instances == nil {
			fa.a.instances = map[instanceKey]bool{}
		}
		fa.a.instances[key] = true
		inst := newFnAnalysis(fa.a, fa.fn)
		inst.callback = 1 // a root: its pairs are edges here
		inst.name, inst.closure = cl.Name, cl.Name
		inst.applyClosure(site, cl, nil, call, newState())
		inst.flushRows()
	}
}

// instanceKey names a closure a factory call returns: the call, and the
// closure's index in the factory's summary.
type instanceKey struct {
	site ssa.Instruction
	i    int
}

// leaves reports whether result r of call is used other than as the
// function of a call (where callReturned applies it).
func leaves(call *ssa.Call, r int) bool {
	var v ssa.Value = call
	if call.Call.Signature().Results().Len() > 1 {
		v = nil
		for _, ref := range *call.Referrers() {
			if x, ok := ref.(*ssa.Extract); ok && x.Index == r {
				v = x
			}
		}
		if v == nil {
			return false
		}
	}
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, ref := range *refs {
		c, ok := ref.(ssa.CallInstruction)
		if !ok || c.Common().Value != v || c.Common().IsInvoke() {
			return true
		}
	}
	return false
}
