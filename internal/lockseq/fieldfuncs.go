package lockseq

import (
	"cmp"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// Calls through function values kept in struct fields.
//
// A saga keeps its steps as a slice of structs of function values
// ([]step{{do: s.holdSeat, undo: s.releaseSeat}, ...}, filled in a
// constructor) and runs st.do(ctx, tx) in a forward loop, s.steps[i].undo(
// ctx, tx) in a backward one; a hook table, a strategy struct, a map of
// handlers or a slice of stage functions (p.stages[i](ctx, tx)) do the
// same. Such a call names no function: it runs whatever the
// program stored into that field. The candidates are the functions the
// package stores into the field anywhere (a composite literal, an
// assignment, a constructor's parameter bound at each of its calls), the
// way a call through an interface runs its implementations (dispatch.go):
// each is a possible path and their effects are joined.
//
// Joining is sound for one call, not for a loop that runs them one after
// another: the second round of the loop would hold one candidate's locks
// while it asks for another's, in both orders, and every function with
// such a loop would seem to invert its own order. What the loop does
// depends on the order of the steps in the slice, which the join forgets.
// Two cases keep it:
//
//   - The slice is one literal that the package stores into one field of a
//     struct and nowhere else (no append, no other assignment): its order
//     is known. A call on the element of a constant index runs that
//     element's function; a loop whose index steps by one over it (a range,
//     or for i := 0; i < n; i++ and its backward form for i := n-1; i >= 0;
//     i--) runs them all in that order (reversed when it counts down),
//     which is applied at the call as one sequence.
//   - Otherwise the order is unknown and each candidate is one path (the
//     join); in a loop, the round that comes back along the loop's back
//     edge, already holding this call's own locks, applies nothing again:
//     pairs between two of the candidates, whose order the analysis cannot
//     tell, are not drawn. A true inversion between two such loops is
//     missed; no function is reported against itself for an order it
//     does not have.
//
// The sequence is applied on the loop's first round as the whole loop; on
// the round back along the edge the call holds its own locks already and
// applies nothing more, as above. Only fields of struct types of the
// analysed package are followed: the functions stored into a field of
// another package's struct are that package's, or its importers', which
// the analysis of this package does not see.

// fieldKey names a field that holds function values: the field, and for
// the elements of a slice, the field of the struct that holds the slice.
type fieldKey struct {
	container, field *types.Var
}

// fieldFuncs indexes the function values the package stores into fields of
// function type.
type fieldFuncs struct {
	// any lists, by field, every function stored into it, in a stable
	// order; an index into it names a candidate (its scope at a call).
	any map[*types.Var][]*ssa.Function
	// unknown holds the fields also set to a value the analysis cannot
	// name (a parameter of an exported function, a call's result).
	unknown map[*types.Var]bool
	// members lists, by container slice field and element field, the
	// functions of the elements of the slice literals the container is
	// set to or appended (s.steps = append(s.steps, step{...})): a call
	// on an element of that container runs one of them. A container
	// set to anything else is not listed.
	members map[fieldKey]members
	// ordered lists, by container slice field and element field, the
	// functions of the elements of the one slice literal the container
	// holds, by index (nil where an element leaves the field unset).
	ordered map[fieldKey][]*ssa.Function
}

// members are the functions the elements of a container hold in a field;
// known is false when one of them cannot be named.
type members struct {
	fns   []*ssa.Function
	known bool
}

// slot is a store into the field of one element of an array literal.
type slot struct {
	array *ssa.Alloc
	index int64
	fns   []*ssa.Function
	known bool
}

// maxFieldFuncs bounds the functions a field may hold to be followed, as
// MaxImpls does for interfaces.
const maxFieldFuncs = MaxImpls

// fieldFuncs returns (once) the package's index of function values stored
// into fields.
func (a *Analysis) fieldFuncs(pkg *ssa.Package) *fieldFuncs {
	if a.fieldFns != nil {
		return a.fieldFns
	}
	ff := &fieldFuncs{
		any: map[*types.Var][]*ssa.Function{}, unknown: map[*types.Var]bool{},
		members: map[fieldKey]members{}, ordered: map[fieldKey][]*ssa.Function{},
	}
	a.fieldFns = ff
	if pkg == nil {
		return ff
	}
	funcs := packageFunctions(pkg)
	var index *callIndex
	calls := func() *callIndex { // built once, where a constructor's parameter is stored
		if index == nil {
			index = indexCalls(funcs)
		}
		return index
	}
	slots := map[*types.Var][]slot{}
	containers := map[*types.Var][]ssa.Value{} // values stored into fields of slice type
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok {
					continue
				}
				if ia, ok := st.Addr.(*ssa.IndexAddr); ok && isFuncType(st.Val.Type()) {
					// An element of a slice literal of functions
					// ([]func(...){a, b}, or append(s.hooks, f)):
					// the slot of no field (nil).
					arr, isAlloc := ia.X.(*ssa.Alloc)
					k, isConst := constIndex(ia.Index)
					if isAlloc && isConst {
						fns, known := storedFuncs(st.Val, calls)
						slots[nil] = append(slots[nil], slot{arr, k, fns, known})
					}
					continue
				}
				addr, ok := st.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				f := fieldVar(addr.X.Type(), addr.Field)
				if f == nil || f.Pkg() != pkg.Pkg {
					continue
				}
				if _, isSlice := f.Type().Underlying().(*types.Slice); isSlice {
					containers[f] = append(containers[f], st.Val)
					continue
				}
				if !isFuncType(f.Type()) {
					continue
				}
				if c, ok := st.Val.(*ssa.Const); ok && c.IsNil() {
					continue
				}
				fns, known := storedFuncs(st.Val, calls)
				if !known {
					ff.unknown[f] = true
				}
				for _, g := range fns {
					if !slices.Contains(ff.any[f], g) {
						ff.any[f] = append(ff.any[f], g)
					}
				}
				if arr, k, ok := elementSlot(addr.X); ok {
					slots[f] = append(slots[f], slot{arr, k, fns, known})
				}
			}
		}
	}
	for f, fns := range ff.any {
		slices.SortFunc(fns, func(x, y *ssa.Function) int {
			return cmp.Or(cmp.Compare(x.Pos(), y.Pos()), cmp.Compare(x.String(), y.String()))
		})
		ff.any[f] = fns
	}
	for container, vals := range containers {
		arrays, ok := containerArrays(container, vals)
		if !ok {
			continue
		}
		for f, ss := range slots {
			m := members{known: true}
			var seq []*ssa.Function
			if len(arrays) == 1 && len(vals) == 1 {
				seq = make([]*ssa.Function, max(arrayLen(arrays[0]), 0))
			}
			for _, s := range ss {
				if !slices.Contains(arrays, s.array) {
					continue
				}
				m.known = m.known && s.known
				for _, g := range s.fns {
					if !slices.Contains(m.fns, g) {
						m.fns = append(m.fns, g)
					}
				}
				if seq == nil {
					continue
				}
				if !s.known || len(s.fns) != 1 || s.index < 0 || s.index >= int64(len(seq)) || seq[s.index] != nil {
					seq = nil // not one known function at each index
					continue
				}
				seq[s.index] = s.fns[0]
			}
			if len(m.fns) == 0 {
				continue
			}
			k := fieldKey{container, f}
			ff.members[k] = m
			if seq != nil && m.known {
				ff.ordered[k] = seq
			}
		}
	}
	return ff
}

// containerArrays returns the array literals whose slices a container
// field is set to (s.steps = []step{...}) or that are appended to it
// (s.steps = append(s.steps, step{...})), each filled field by field; ok
// is false when it is set to anything else.
func containerArrays(container *types.Var, vals []ssa.Value) (arrays []*ssa.Alloc, ok bool) {
	for _, v := range vals {
		if call, isCall := v.(*ssa.Call); isCall {
			b, isBuiltin := call.Call.Value.(*ssa.Builtin)
			if !isBuiltin || b.Name() != "append" || len(call.Call.Args) != 2 || !ownLoad(call.Call.Args[0], container) {
				return nil, false
			}
			v = call.Call.Args[1]
		}
		sl, isSlice := v.(*ssa.Slice)
		if !isSlice {
			return nil, false
		}
		arr, isAlloc := sl.X.(*ssa.Alloc)
		if !isAlloc || !fieldwise(arr) {
			return nil, false
		}
		arrays = append(arrays, arr)
	}
	return arrays, len(arrays) > 0
}

// ownLoad reports whether v is the container's own value (the slice an
// append extends), or nil.
func ownLoad(v ssa.Value, container *types.Var) bool {
	if c, ok := v.(*ssa.Const); ok && c.IsNil() {
		return true
	}
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return false
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	return ok && fieldVar(fa.X.Type(), fa.Field) == container
}

// elementSlot returns the element of an array literal that the struct at
// addr is: the element itself (&arr[k]), or the local composite literal
// whose value is then copied into it (t := step{...}; arr[k] = *t, the
// shape of a slice literal of struct literals).
func elementSlot(addr ssa.Value) (*ssa.Alloc, int64, bool) {
	if ia, ok := addr.(*ssa.IndexAddr); ok {
		arr, isAlloc := ia.X.(*ssa.Alloc)
		k, isConst := constIndex(ia.Index)
		return arr, k, isAlloc && isConst
	}
	local, ok := addr.(*ssa.Alloc)
	if !ok || local.Heap {
		return nil, 0, false
	}
	var (
		arr   *ssa.Alloc
		index int64
		found int
	)
	for _, r := range *local.Referrers() {
		load, ok := r.(*ssa.UnOp)
		if !ok || load.Op != token.MUL {
			continue
		}
		for _, u := range *load.Referrers() {
			st, ok := u.(*ssa.Store)
			if !ok || st.Val != load {
				continue
			}
			ia, ok := st.Addr.(*ssa.IndexAddr)
			if !ok {
				return nil, 0, false
			}
			a, isAlloc := ia.X.(*ssa.Alloc)
			k, isConst := constIndex(ia.Index)
			if !isAlloc || !isConst {
				return nil, 0, false
			}
			arr, index = a, k
			found++
		}
	}
	return arr, index, found == 1
}

// fieldwise reports whether the elements of an array literal are only
// filled field by field at constant indices ([]step{{do: f}}, directly or
// through a local literal copied in), not stored whole from elsewhere
// ([]step{mkStep(f)}), whose fields the index does not see.
func fieldwise(arr *ssa.Alloc) bool {
	funcs := false
	if p, ok := arr.Type().Underlying().(*types.Pointer); ok {
		if a, ok := p.Elem().Underlying().(*types.Array); ok {
			funcs = isFuncType(a.Elem())
		}
	}
	for _, r := range *arr.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		if _, isConst := constIndex(ia.Index); !isConst {
			return false
		}
		for _, u := range *ia.Referrers() {
			st, ok := u.(*ssa.Store)
			if !ok || st.Addr != ia || funcs {
				continue // a function element is its own slot
			}
			load, ok := st.Val.(*ssa.UnOp)
			if !ok || load.Op != token.MUL {
				return false
			}
			local, ok := load.X.(*ssa.Alloc)
			if !ok {
				return false
			}
			if a, _, ok := elementSlot(local); !ok || a != arr {
				return false
			}
		}
	}
	return true
}

// packageFunctions lists the functions, methods and closures declared in
// pkg, and its initialisers.
func packageFunctions(pkg *ssa.Package) []*ssa.Function {
	var out []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		out = append(out, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, m := range pkg.Members {
		switch x := m.(type) {
		case *ssa.Function:
			add(x)
		case *ssa.Type:
			named, ok := x.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 || types.IsInterface(named) {
				continue
			}
			for _, recv := range []types.Type{named, types.NewPointer(named)} {
				for sel := range pkg.Prog.MethodSets.MethodSet(recv).Methods() {
					if f := pkg.Prog.MethodValue(sel); f != nil && f.Pkg == pkg && f.Synthetic == "" {
						add(f)
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(x, y *ssa.Function) int {
		return cmp.Or(cmp.Compare(x.Pos(), y.Pos()), cmp.Compare(x.String(), y.String()))
	})
	return slices.Compact(out)
}

// storedFuncs resolves a function value stored into a field: the function
// or closure it is (a method value's wrapper), or, for a parameter of an
// unexported function of the package (newStep(do, undo)), the functions
// its calls pass there. known is false when some of it cannot be named.
func storedFuncs(v ssa.Value, calls func() *callIndex) (fns []*ssa.Function, known bool) {
	if fn, _ := funcValue(v); fn != nil {
		return []*ssa.Function{fn}, true
	}
	p, ok := funcSource(v).(*ssa.Parameter)
	if !ok || p.Parent() == nil || p.Parent().Parent() != nil {
		return nil, false
	}
	owner := p.Parent()
	if obj := owner.Object(); obj == nil || obj.Exported() {
		return nil, false // callers elsewhere pass what they like
	}
	idx := calls()
	if idx.escapes[owner] {
		return nil, false // a value of the function: calls the index does not see
	}
	i := slices.Index(owner.Params, p)
	known = true
	for _, c := range idx.calls[owner] {
		if i >= len(c.Args) {
			known = false
			continue
		}
		fn, _ := funcValue(c.Args[i])
		if fn == nil {
			known = false
			continue
		}
		if !slices.Contains(fns, fn) {
			fns = append(fns, fn)
		}
	}
	return fns, known
}

// callIndex lists the static calls of each function of a package, and the
// functions used otherwise (as values: passed, stored, or bound as method
// values), whose calls it cannot list.
type callIndex struct {
	calls   map[*ssa.Function][]*ssa.CallCommon
	escapes map[*ssa.Function]bool
}

// indexCalls builds the call index of funcs.
func indexCalls(funcs []*ssa.Function) *callIndex {
	idx := &callIndex{calls: map[*ssa.Function][]*ssa.CallCommon{}, escapes: map[*ssa.Function]bool{}}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if mc, ok := instr.(*ssa.MakeClosure); ok {
					// A method value (o.newStep) binds a wrapper
					// that calls the method.
					if w, ok := mc.Fn.(*ssa.Function); ok && w.Synthetic != "" {
						if m, ok := w.Object().(*types.Func); ok {
							if f := fn.Prog.FuncValue(m); f != nil {
								idx.escapes[f] = true
							}
						}
					}
				}
				var callee ssa.Value
				if call, ok := instr.(ssa.CallInstruction); ok {
					c := call.Common()
					if f := c.StaticCallee(); f != nil && c.Value == f {
						idx.calls[f] = append(idx.calls[f], c)
						callee = f
					}
				}
				for _, op := range instr.Operands(nil) {
					if op == nil || *op == callee {
						continue
					}
					if f, ok := (*op).(*ssa.Function); ok {
						idx.escapes[f] = true
					}
				}
			}
		}
	}
	return idx
}

// isFuncType reports whether t is a function type.
func isFuncType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

// fieldVar returns field i of the struct type t points to or is.
func fieldVar(t types.Type, i int) *types.Var {
	s := structOf(t)
	if s == nil || i >= s.NumFields() {
		return nil
	}
	return s.Field(i)
}

// constIndex returns the value of a constant index.
func constIndex(v ssa.Value) (int64, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

// arrayLen is the length of the array an Alloc makes (a slice literal's
// backing array), or -1.
func arrayLen(a *ssa.Alloc) int64 {
	p, ok := a.Type().Underlying().(*types.Pointer)
	if !ok {
		return -1
	}
	arr, ok := p.Elem().Underlying().(*types.Array)
	if !ok {
		return -1
	}
	return arr.Len()
}

// fieldCall applies a call of a function value loaded from a struct field
// (see above). It reports whether the value is one.
func (fa *fnAnalysis) fieldCall(site ssa.Instruction, c *ssa.CallCommon, st *state) bool {
	var (
		f    *types.Var
		elem ssa.Value // where the struct is, when it is one of a slice
	)
	switch src := funcSource(c.Value).(type) {
	case *ssa.FieldAddr: // s.steps[i].undo: a load through the field's address
		f = fieldVar(src.X.Type(), src.Field)
		elem = src.X
	case *ssa.Field: // st.do, st a copy of the element
		f = fieldVar(src.X.Type(), src.Field)
		if load, ok := src.X.(*ssa.UnOp); ok && load.Op == token.MUL {
			elem = load.X
		}
	case *ssa.IndexAddr: // s.hooks[i](...), h(...) in a range over s.hooks
		elem = src // the function is the element: no field (nil)
	default:
		return false
	}
	if fa.fn.Pkg == nil || f != nil && f.Pkg() != fa.fn.Pkg.Pkg {
		return false
	}
	ff := fa.a.fieldFuncs(fa.fn.Pkg)
	// The candidates: the functions of the container's elements when the
	// struct (or function) is one of them, else all the field holds.
	all, unknown := ff.any[f], ff.unknown[f]
	container, index := sliceElement(elem)
	m, isMember := ff.members[fieldKey{container, f}]
	if f == nil {
		if !isMember || container.Pkg() != fa.fn.Pkg.Pkg {
			return false
		}
		all = m.fns // a slice of functions: its own list names them
	}
	if len(all) == 0 {
		return false
	}
	cands := all
	if isMember {
		cands, unknown = m.fns, !m.known
	}
	// The candidates that take locks, by their index in all (their scope).
	var locking []int
	for _, fn := range cands {
		if !fa.a.summaryOf(fn).Empty() {
			locking = append(locking, slices.Index(all, fn))
		}
	}
	if len(locking) == 0 || len(locking) > maxFieldFuncs {
		return true
	}
	if fa.ranHere(site, st) {
		return true // the loop's back edge: its calls were applied already
	}
	if seq, ok := fieldSequence(ff.ordered[fieldKey{container, f}], index, c); ok {
		for _, fn := range seq {
			if fn != nil {
				fa.applyFieldFunc(site, slices.Index(all, fn), fn, c, st)
			}
		}
		return true
	}
	var out *state
	if len(locking) < len(cands) || unknown {
		// A candidate that takes no lock, or one the analysis cannot
		// name: a path on which the call changes nothing.
		out = st.clone()
	}
	for _, i := range locking {
		s := st.clone()
		fa.applyFieldFunc(site, i, all[i], c, s)
		if out == nil {
			out = s
		} else {
			out.join(s)
		}
	}
	*st = *out
	return true
}

// sliceElement resolves the struct at elem as an element of a slice held
// in a struct field: the container field and the element's index, through
// a range's local copy of the element (for _, st := range s.steps) that
// is not written field by field.
func sliceElement(elem ssa.Value) (*types.Var, ssa.Value) {
	if local, ok := elem.(*ssa.Alloc); ok {
		elem = nil
		if st := onlyStore(local, nil); st != nil && !writesFields(local) {
			if load, ok := st.Val.(*ssa.UnOp); ok && load.Op == token.MUL {
				elem = load.X
			}
		}
	}
	ia, ok := elem.(*ssa.IndexAddr)
	if !ok {
		return nil, nil
	}
	load, ok := ia.X.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil, nil
	}
	caddr, ok := load.X.(*ssa.FieldAddr)
	if !ok {
		return nil, nil
	}
	return fieldVar(caddr.X.Type(), caddr.Field), ia.Index
}

// fieldSequence returns the functions a call at element index of an
// ordered slice seq runs, in order (see above): the one element of a
// constant index, or all of them, forward or backward, for an index that a
// loop steps by one while the call's arguments stay the same.
func fieldSequence(seq []*ssa.Function, index ssa.Value, c *ssa.CallCommon) ([]*ssa.Function, bool) {
	if seq == nil || index == nil {
		return nil, false
	}
	if k, isConst := constIndex(index); isConst {
		if k < 0 || k >= int64(len(seq)) {
			return nil, false
		}
		return seq[k : k+1], true
	}
	header := loopHeader(index)
	if header == nil || !invariant(c.Args, header) {
		// Each round passes other values (a transaction begun for
		// each step): the steps hold nothing of each other's.
		return nil, false
	}
	switch loopStep(index) {
	case 1:
		return seq, true
	case -1:
		out := slices.Clone(seq)
		slices.Reverse(out)
		return out, true
	}
	return nil, false
}

// loopHeader returns the header of the loop whose index idx is (the block
// of its φ-node), or nil.
func loopHeader(idx ssa.Value) *ssa.BasicBlock {
	if b, ok := idx.(*ssa.BinOp); ok {
		idx = b.X
	}
	if phi, ok := idx.(*ssa.Phi); ok {
		return phi.Block()
	}
	return nil
}

// invariant reports whether each of args is defined before the loop with
// header h begins: the same value in every round.
func invariant(args []ssa.Value, h *ssa.BasicBlock) bool {
	for _, v := range args {
		instr, ok := v.(ssa.Instruction)
		if !ok || instr.Block() == nil {
			continue // a parameter, a constant, a function
		}
		if b := instr.Block(); b == h || !b.Dominates(h) {
			return false
		}
	}
	return true
}

// writesFields reports whether a field of the struct at local is set
// through its address.
func writesFields(local *ssa.Alloc) bool {
	for _, r := range *local.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		for _, u := range *fa.Referrers() {
			if st, ok := u.(*ssa.Store); ok && st.Addr == fa {
				return true
			}
		}
	}
	return false
}

// loopStep says how a loop's index moves: 1 for a range or an index that
// counts up by one, -1 for one that counts down by one, 0 otherwise.
func loopStep(idx ssa.Value) int {
	one := func(v ssa.Value) bool { k, ok := constIndex(v); return ok && k == 1 }
	switch x := idx.(type) {
	case *ssa.BinOp:
		// A range's index: the header's φ plus one.
		if _, ok := x.X.(*ssa.Phi); ok && x.Op == token.ADD && one(x.Y) {
			return 1
		}
	case *ssa.Phi:
		step := 0
		for _, e := range x.Edges {
			b, ok := e.(*ssa.BinOp)
			if !ok || b.X != x || !one(b.Y) {
				continue
			}
			s := 0
			switch b.Op {
			case token.ADD:
				s = 1
			case token.SUB:
				s = -1
			}
			if step != 0 && s != step {
				return 0
			}
			step = s
		}
		return step
	}
	return 0
}

// ranHere reports whether st already holds a lock this call site took
// through a field's function: the state came back along a loop's edge, and
// the loop's calls were applied on its first round (see above).
func (fa *fnAnalysis) ranHere(site ssa.Instruction, st *state) bool {
	for k, i := range fa.eventIdx {
		if k.instr == site && len(k.scope) > 3 && k.scope[:3] == "#fv" && st.held[i] {
			return true
		}
	}
	return false
}

// applyFieldFunc applies candidate i of a field, fn, at the call c: its
// parameters are the call's arguments; a closure's free variables, bound
// where it was stored, are unknown here.
func (fa *fnAnalysis) applyFieldFunc(site ssa.Instruction, i int, fn *ssa.Function, c *ssa.CallCommon, st *state) {
	sum := fa.a.summaryOf(fn)
	if sum.Empty() {
		return
	}
	n := numParams(fn)
	bind := func(j int, path []string) (Handle, bool) {
		return fa.bindArg(c.Args, nil, n, j, path)
	}
	fa.apply(site, fmt.Sprintf("#fv%d", i), sum, calleeValues(c.Args, nil, n), bind, st)
}
