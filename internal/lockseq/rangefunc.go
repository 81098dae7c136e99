package lockseq

import (
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// Range-over-func loops.
//
// A loop over an iterator (for id := range maps.Keys(amounts), for _, a :=
// range slices.All(accounts), or an iterator of the program's own) is
// compiled into a call of the iterator with the loop's body as a synthetic
// yield function: the body is a closure, which the iterator calls once per
// element. Seen as a closure of its own, the body would lose what the loop
// is: locks it takes after a gate the enclosing function holds would be
// drawn without the gate, and a lock keyed by the element would not be seen
// to come once per element. So the body is applied at the call, as a
// runner's callback is, with its parameters (the loop's elements) marked as
// such, and the order of a loop over a map, or over a slice nobody sorted,
// is judged as for a range statement.

// rangeYield is the synthetic name go/ssa gives the body of a
// range-over-func loop.
const rangeYield = "range-over-func yield"

// yieldBody returns the loop body passed to a call of an iterator (it(body)
// in the SSA form of a range-over-func loop), with its bindings, or nil.
func yieldBody(c *ssa.CallCommon) (*ssa.Function, []ssa.Value) {
	if c.IsInvoke() || len(c.Args) != 1 {
		return nil, nil
	}
	mc, ok := c.Args[0].(*ssa.MakeClosure)
	if !ok {
		return nil, nil
	}
	body, ok := mc.Fn.(*ssa.Function)
	if !ok || body.Synthetic != rangeYield {
		return nil, nil
	}
	return body, mc.Bindings
}

// loopBody reports whether site calls an iterator with a loop body.
func loopBody(site ssa.Instruction) bool {
	call, ok := site.(ssa.CallInstruction)
	if !ok {
		return false
	}
	body, _ := yieldBody(call.Common())
	return body != nil
}

// frameName is the function named in the frames of fn's paths: a
// range-over-func loop's body is named after the function it is written
// in, where its statements are.
func frameName(fn *ssa.Function, name string) string {
	for fn.Synthetic == rangeYield && fn.Parent() != nil {
		fn = fn.Parent()
		name = FuncName(fn)
	}
	return name
}

// rangeFuncLoop is the range-over-func loop whose body is being applied.
type rangeFuncLoop struct {
	body *ssa.Function
	// params counts the body's parameters: the loop's elements.
	params int
	// over says what the loop ranges over when its order is not
	// defined ("" when it is, or cannot be told).
	over string
}

// rangeFuncCall applies, at a call of an iterator, the loop body it is
// given (see above), and reports whether the call was one.
func (fa *fnAnalysis) rangeFuncCall(site ssa.Instruction, c *ssa.CallCommon, st *state) bool {
	body, bindings := yieldBody(c)
	if body == nil {
		return false
	}
	sum := fa.a.summaryOf(body)
	if sum.Empty() {
		return true
	}
	n := numParams(body)
	bind := func(i int, path []string) (Handle, bool) {
		return fa.bindArg(nil, bindings, n, i, path)
	}
	outer := fa.yieldLoop
	fa.yieldLoop = &rangeFuncLoop{body: body, params: n, over: fa.iteratorOrder(c.Value)}
	defer func() { fa.yieldLoop = outer }()
	fa.enter(body, site, st)
	fa.apply(site, "", sum, calleeValues(nil, bindings, n), bind, st)
	return true
}

// iteratorOrder says why the order in which iterator it yields is not
// defined: an iterator of a map's keys, values or pairs (maps.Keys, maps.Values,
// maps.All), or of a slice's elements (slices.Values, slices.All,
// slices.Backward) whose order the function does not define. It is "" for
// any other iterator, whose order cannot be told.
func (fa *fnAnalysis) iteratorOrder(it ssa.Value) string {
	call, ok := stripConversions(it).(*ssa.Call)
	if !ok || call.Call.IsInvoke() || len(call.Call.Args) != 1 {
		return ""
	}
	f, ok := call.Call.Value.(*ssa.Function)
	if !ok || f.Object() == nil || f.Object().Pkg() == nil {
		return ""
	}
	switch f.Object().Pkg().Path() + "." + baseName(f) {
	case "maps.Keys", "maps.Values", "maps.All":
		return "a map (Go randomises its order)"
	case "slices.Values", "slices.All", "slices.Backward":
		return fa.sliceOrder(call.Call.Args[0])
	}
	return ""
}

// at returns the position, in the loop's body, of the step that starts
// path (the body's statement or call that leads to a lock): where a finding
// about the lock is reported, as it is for a range statement's body. It is
// the body's own position when no step of it is there.
func (l *rangeFuncLoop) at(fset *token.FileSet, path []lockgraph.Frame) token.Pos {
	if len(path) > 0 && fset != nil {
		want := path[0].Pos
		for _, b := range l.body.Blocks {
			for _, instr := range b.Instrs {
				if p := instr.Pos(); p.IsValid() && fset.Position(p) == want {
					return p
				}
			}
		}
	}
	return l.body.Pos()
}
