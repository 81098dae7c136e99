package lockseq

import (
	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// callbackOnly reports whether the function is a closure that is only ever
// handed to functions that run it (a transaction runner's callback:
// store.InTx(ctx, func(tx Tx) error {...}), pgx.BeginFunc). Its lock pairs
// are then drawn where it runs, by the callers that apply its summary, and
// not in the closure alone: the runner may hold a gate around the callback
// (an advisory lock on the tenant taken before fn(tx)) that the closure
// cannot see. A closure kept, returned, or passed to something that does
// not run it draws its own edges, as any function does.
func (fa *fnAnalysis) callbackOnly() bool {
	if fa.callback == 0 {
		fa.callback = 1
		if fa.fn.Parent() != nil && fa.ranByCallees() {
			fa.callback = 2
		}
	}
	return fa.callback == 2
}

// ranByCallees reports whether every use of the closure in its enclosing
// function is an argument of a call that runs it: pgx.BeginFunc and the
// like, or a function (or every implementation of an interface method)
// whose summary invokes that parameter.
func (fa *fnAnalysis) ranByCallees() bool {
	parent := fa.fn.Parent()
	found := false
	for _, b := range parent.Blocks {
		for _, instr := range b.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok || mc.Fn != fa.fn {
				continue
			}
			found = true
			refs := mc.Referrers()
			if refs == nil || len(*refs) == 0 {
				return false
			}
			for _, ref := range *refs {
				call, ok := ref.(*ssa.Call)
				if !ok || !fa.runs(call.Common(), mc) {
					return false
				}
			}
		}
	}
	return found
}

// runs reports whether the call c runs its argument fn.
func (fa *fnAnalysis) runs(c *ssa.CallCommon, fn ssa.Value) bool {
	if c.Value == fn {
		return false // called right here, not handed on
	}
	if body, _ := yieldBody(c); body != nil && c.Args[0] == fn {
		return true // a loop body, applied where the loop runs (rangefunc.go)
	}
	if op := fa.a.env.Rules.Classify(c); op.Kind == sqlsite.BeginFunc {
		return op.Func >= 0 && op.Func < len(op.Args) && op.Args[op.Func] == fn
	}
	arg := -1
	for i, a := range c.Args {
		if a == fn {
			arg = i
		}
	}
	if arg < 0 {
		return false
	}
	invokes := func(sum *Summary, param int) bool {
		if sum == nil {
			return false
		}
		for _, inv := range sum.Invokes {
			if inv.Param == param {
				return true
			}
		}
		return false
	}
	if c.IsInvoke() {
		// The receiver is parameter 0 of every implementation.
		impls := fa.a.implementations(fa.fn.Prog, c.Value.Type(), c.Method)
		if len(impls) == 0 || len(impls) > MaxImpls {
			return false
		}
		for _, m := range impls {
			if !invokes(fa.a.implSummary(m), arg+1) {
				return false
			}
		}
		return true
	}
	callee := c.StaticCallee()
	if callee == nil {
		return false
	}
	return invokes(fa.a.summaryOf(callee), arg)
}
