package lockseq

import (
	"go/types"
	"maps"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// rangeLoop is a for-range loop of the function whose iteration order is
// not defined: over a map, or over a slice nobody sorted.
type rangeLoop struct {
	blocks map[*ssa.BasicBlock]bool
	// elems are the values that change with each iteration: the key and
	// value of a map, the index and element of a slice.
	elems map[ssa.Value]bool
	// over says what the loop ranges over, for messages.
	over string
}

// unorderedLoops finds (once) the function's range loops in no defined
// order.
func (fa *fnAnalysis) unorderedLoops() []*rangeLoop {
	if fa.loops != nil {
		return *fa.loops
	}
	var out []*rangeLoop
	for _, h := range fa.fn.Blocks {
		var l *rangeLoop
		switch h.Comment {
		case "rangeiter.loop":
			l = fa.mapLoop(h)
		case "rangeindex.loop", "for.loop":
			l = fa.sliceLoop(h)
		}
		if l != nil {
			out = append(out, l)
		}
	}
	fa.loops = &out
	return out
}

// loopBlocks returns the blocks of the natural loop with header h.
func loopBlocks(h *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	blocks := map[*ssa.BasicBlock]bool{h: true}
	var work []*ssa.BasicBlock
	for _, p := range h.Preds {
		if h.Dominates(p) && !blocks[p] {
			blocks[p] = true
			work = append(work, p)
		}
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range b.Preds {
			if !blocks[p] {
				blocks[p] = true
				work = append(work, p)
			}
		}
	}
	return blocks
}

// mapLoop recognises a range over a map: its order is random on every run.
func (fa *fnAnalysis) mapLoop(h *ssa.BasicBlock) *rangeLoop {
	var next *ssa.Next
	for _, instr := range h.Instrs {
		if n, ok := instr.(*ssa.Next); ok && !n.IsString {
			next = n
		}
	}
	if next == nil {
		return nil
	}
	l := &rangeLoop{blocks: loopBlocks(h), elems: map[ssa.Value]bool{}, over: "a map (Go randomises its order)"}
	for b := range l.blocks {
		for _, instr := range b.Instrs {
			if x, ok := instr.(*ssa.Extract); ok && x.Tuple == next && x.Index > 0 {
				l.elems[x] = true
			}
		}
	}
	return l
}

// sliceLoop recognises a range over a slice or array whose order the
// function does not define.
func (fa *fnAnalysis) sliceLoop(h *ssa.BasicBlock) *rangeLoop {
	// The index: for range, the incremented counter the header computes;
	// for a three-clause loop (for i := 0; i < len(s); i++), the header's
	// φ-nodes.
	index := map[ssa.Value]bool{}
	for _, instr := range h.Instrs {
		switch x := instr.(type) {
		case *ssa.BinOp:
			if h.Comment == "rangeindex.loop" && x.Op.String() == "+" {
				index[x] = true
			}
		case *ssa.Phi:
			if h.Comment == "for.loop" {
				index[x] = true
			}
		}
	}
	if len(index) == 0 || len(h.Preds) < 2 {
		return nil
	}
	blocks := loopBlocks(h)
	elems := maps.Clone(index)
	var coll ssa.Value
	for b := range blocks {
		for _, instr := range b.Instrs {
			switch x := instr.(type) {
			case *ssa.IndexAddr:
				if index[x.Index] {
					coll = x.X
					elems[x] = true
				}
			case *ssa.Index:
				if index[x.Index] {
					coll = x.X
					elems[x] = true
				}
			}
		}
	}
	if coll == nil {
		return nil
	}
	over := fa.sliceOrder(coll)
	if over == "" {
		return nil
	}
	return &rangeLoop{blocks: blocks, elems: elems, over: over}
}

// sliceOrder says why the order of a ranged slice is not defined, or ""
// when it is (sorted here, or a constant list) or cannot be told (the
// result of a call, which may have sorted it).
func (fa *fnAnalysis) sliceOrder(coll ssa.Value) string {
	root := sliceRoot(coll)
	if fa.sorted(root) {
		return ""
	}
	switch x := root.(type) {
	case *ssa.FreeVar:
		// A closure's captured slice: its order is whatever the
		// enclosing function made of it.
		parent, b, ok := boundValue(x)
		if parent == nil {
			return "the slice " + x.Name() + " in the order the caller passes it"
		}
		if !ok {
			return ""
		}
		if over := (&fnAnalysis{fn: parent}).sliceOrder(b); over != "" {
			return strings.Replace(over, "the slice "+b.Name()+" ", "the slice "+x.Name()+" ", 1)
		}
		return ""
	case *ssa.Parameter:
		return "the slice " + x.Name() + " in the order the caller passes it"
	case *ssa.Field, *ssa.UnOp:
		if o := fa.origin(x, 0); callerChosen(o) {
			return "the slice " + fa.keyName(o) + " in the order the caller passes it"
		}
	case *ssa.Alloc:
		// A slice literal: a constant list is one fixed order; a list of
		// the caller's values ([]int64{from, to}) is theirs.
		if fa.literalOfCallerValues(x) {
			return "a slice literal of values in the order the caller passes them"
		}
	case *ssa.Phi, *ssa.Call:
		return fa.builtOrder(x)
	case *ssa.Extract:
		// ids, err := pgx.CollectRows(...)
		if c, ok := x.Tuple.(*ssa.Call); ok && x.Index == 0 {
			return fa.builtOrder(c)
		}
	}
	return ""
}

// sliceRoot looks through conversions and re-slicing to the value that
// holds a slice's elements.
func sliceRoot(v ssa.Value) ssa.Value {
	for {
		switch x := stripConversions(v).(type) {
		case *ssa.Slice:
			v = x.X
		case *ssa.UnOp:
			// A variable captured by a closure lives in memory: its
			// loads are the variable (its one value, if stored once).
			switch addr := x.X.(type) {
			case *ssa.FreeVar:
				return addr
			case *ssa.Alloc:
				if _, isArray := deref(addr.Type()).Underlying().(*types.Array); isArray {
					return x
				}
				if st := onlyStore(addr, nil); st != nil {
					v = st.Val
					continue
				}
				return addr
			}
			return x
		default:
			return x
		}
	}
}

// sorted reports whether the function sorts the slice root (sort.Slice,
// sort.Strings, slices.Sort, slices.SortFunc, sort.Sort(byID(s)) ...) or
// got it from slices.Sorted.
func (fa *fnAnalysis) sorted(root ssa.Value) bool {
	if c, ok := root.(*ssa.Call); ok && isSortFunc(c.Call.StaticCallee()) {
		return true
	}
	return sortsIn(fa.fn, func(a ssa.Value) bool { return sliceRoot(a) == root }, 0)
}

// sortsIn reports whether fn passes a value that isArg accepts to a sorting
// function, directly or through a function of the program that sorts its
// parameter (sortIDs(ids) where sortIDs calls slices.Sort).
func sortsIn(fn *ssa.Function, isArg func(ssa.Value) bool, depth int) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			c, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			callee := c.Call.StaticCallee()
			for i, a := range c.Call.Args {
				if !isArg(unwrapReverse(a)) {
					continue
				}
				if isSortFunc(callee) {
					return true
				}
				if callee != nil && depth < 2 && len(callee.Blocks) > 0 && i < len(callee.Params) {
					p := callee.Params[i]
					if sortsIn(callee, func(v ssa.Value) bool { return sliceRoot(v) == p }, depth+1) {
						return true
					}
				}
			}
		}
	}
	return false
}

// isSortFunc reports whether f is a sorting function of the standard
// library.
func isSortFunc(f *ssa.Function) bool {
	if f == nil {
		return false
	}
	if f.Origin() != nil {
		f = f.Origin()
	}
	if f.Pkg == nil && f.Object() == nil {
		return false
	}
	pkg := ""
	if obj := f.Object(); obj != nil && obj.Pkg() != nil {
		pkg = obj.Pkg().Path()
	}
	switch pkg {
	case "sort":
		switch f.Name() {
		case "Sort", "Stable", "Slice", "SliceStable", "Strings", "Ints", "Float64s":
			return true
		}
	case "slices":
		switch f.Name() {
		case "Sort", "SortFunc", "SortStableFunc", "Sorted", "SortedFunc", "SortedStableFunc":
			return true
		}
	}
	return false
}

// literalOfCallerValues reports whether the array behind a slice literal
// holds two or more values the caller passes ([]int64{from, to}). A list of
// constants is one fixed order, and values the code computed
// ([]int64{min(a, b), max(a, b)}) are in the order it chose.
func (fa *fnAnalysis) literalOfCallerValues(arr *ssa.Alloc) bool {
	vals, ok := sqlsite.ArrayLiteral(arr)
	if !ok || len(vals) < 2 {
		return false
	}
	for _, v := range vals {
		if !callerChosen(fa.origin(v, 0)) {
			return false
		}
	}
	return true
}

// builtOrder says why a slice the function builds by appending has no
// defined order: it appends in a loop over a map, or in a loop over query
// rows when no query of the function has an ORDER BY.
func (fa *fnAnalysis) builtOrder(v ssa.Value) string {
	seen := map[ssa.Value]bool{}
	var appends []*ssa.Call
	var walk func(v ssa.Value)
	walk = func(v ssa.Value) {
		if seen[v] || len(seen) > 32 {
			return
		}
		seen[v] = true
		switch x := v.(type) {
		case *ssa.Phi:
			for _, e := range x.Edges {
				walk(e)
			}
		case *ssa.Call:
			if b, ok := x.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
				appends = append(appends, x)
				walk(x.Call.Args[0])
			} else if n := baseName(x.Call.StaticCallee()); (n == "CollectRows" || n == "AppendRows") && !fa.hasOrderBy() {
				// pgx.CollectRows of a query without ORDER BY.
				appends = append(appends, x)
			} else if baseName(x.Call.StaticCallee()) == "Collect" && len(x.Call.Args) == 1 {
				// slices.Collect(maps.Keys(m)): the map's order.
				if inner, ok := x.Call.Args[0].(*ssa.Call); ok {
					if g := baseName(inner.Call.StaticCallee()); g == "Keys" || g == "Values" {
						appends = append(appends, x)
					}
				}
			}
		}
	}
	walk(v)
	for _, a := range appends {
		switch baseName(a.Call.StaticCallee()) {
		case "Collect":
			return "the keys of a map (Go randomises their order)"
		case "CollectRows", "AppendRows":
			return "a slice of query results that have no ORDER BY"
		}
		for _, l := range fa.rawLoops() {
			if !l.blocks[a.Block()] {
				continue
			}
			switch l.kind {
			case "map":
				return "a slice built from a map (Go randomises its order)"
			case "rows":
				if !fa.hasOrderBy() {
					return "a slice of query results that have no ORDER BY"
				}
			}
		}
	}
	return ""
}

// rawLoop is any loop of the function, with what drives it.
type rawLoop struct {
	blocks map[*ssa.BasicBlock]bool
	kind   string // "map", "rows" (a loop on rows.Next()), or ""
}

// rawLoops lists the loops that drive appends: map ranges and rows.Next()
// loops.
func (fa *fnAnalysis) rawLoops() []rawLoop {
	var out []rawLoop
	for _, h := range fa.fn.Blocks {
		kind := ""
		for _, instr := range h.Instrs {
			switch x := instr.(type) {
			case *ssa.Next:
				if !x.IsString {
					kind = "map"
				}
			case *ssa.Call:
				if x.Call.IsInvoke() && x.Call.Method.Name() == "Next" ||
					x.Call.StaticCallee() != nil && x.Call.StaticCallee().Name() == "Next" {
					kind = "rows"
				}
			}
		}
		if kind == "" {
			continue
		}
		isHeader := false
		for _, p := range h.Preds {
			if h.Dominates(p) {
				isHeader = true
			}
		}
		if isHeader {
			out = append(out, rawLoop{blocks: loopBlocks(h), kind: kind})
		}
	}
	return out
}

// hasOrderBy reports whether a string constant of the function contains an
// ORDER BY: its query results come back in a defined order.
func (fa *fnAnalysis) hasOrderBy() bool {
	for _, b := range fa.fn.Blocks {
		for _, instr := range b.Instrs {
			for _, op := range instr.Operands(nil) {
				if c, ok := (*op).(*ssa.Const); ok {
					if s := goConst(c); s != "" && strings.Contains(strings.ToUpper(s), "ORDER BY") {
						return true
					}
				}
			}
		}
	}
	return false
}

// inUnorderedLoop reports whether site runs in a range loop in no defined
// order, with one of vals computed from the loop's element, and what the
// loop ranges over.
func (fa *fnAnalysis) inUnorderedLoop(site ssa.Instruction, ev *Event, vals []ssa.Value) (string, bool) {
	for _, l := range fa.unorderedLoops() {
		if !l.blocks[site.Block()] || fa.begunIn(ev.Tx, l.blocks) {
			continue
		}
		for _, v := range vals {
			if derivesFrom(v, l.elems) {
				return l.over, true
			}
		}
	}
	return "", false
}

// derivesFrom reports whether v is computed from one of elems within the
// function (through conversions, field reads, arithmetic and calls).
func derivesFrom(v ssa.Value, elems map[ssa.Value]bool) bool {
	seen := map[ssa.Value]bool{}
	work := []ssa.Value{v}
	for len(work) > 0 && len(seen) < 64 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if v == nil || seen[v] {
			continue
		}
		seen[v] = true
		if elems[v] {
			return true
		}
		instr, ok := v.(ssa.Instruction)
		if !ok {
			continue
		}
		if _, isPhi := v.(*ssa.Phi); isPhi {
			continue // a value carried round the loop, not this iteration's
		}
		if a, ok := v.(*ssa.Alloc); ok {
			// A local copy (the loop variable of a range over
			// structs): what is stored into it.
			for _, ref := range *a.Referrers() {
				if st, ok := ref.(*ssa.Store); ok && st.Addr == a {
					work = append(work, st.Val)
				}
			}
			continue
		}
		for _, op := range instr.Operands(nil) {
			if *op != nil {
				work = append(work, *op)
			}
		}
	}
	return false
}

// deref returns the element type of a pointer type, or t.
func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// begunIn reports whether the handle ref is one the function opens inside
// the loop blocks: a transaction per iteration holds nothing across them.
func (fa *fnAnalysis) begunIn(ref Ref, blocks map[*ssa.BasicBlock]bool) bool {
	if !ref.local() {
		return false
	}
	if site, ok := fa.siteOf(ref); ok {
		// A handle a callee made at a call of this function (a
		// wrapper's BeginTx returning its transaction): begun where
		// that call is.
		return blocks[site.Block()]
	}
	for v, r := range fa.locals {
		if r != ref {
			continue
		}
		if instr, ok := v.(ssa.Instruction); ok && blocks[instr.Block()] {
			return true
		}
	}
	return false
}

// siteOf returns the call of this function at which the handle ref was
// made by the callee ("C3/L0", "C3#impl1/L0": made at call site 3), and
// whether ref names one.
func (fa *fnAnalysis) siteOf(ref Ref) (ssa.Instruction, bool) {
	s := string(ref)
	if !strings.HasPrefix(s, "C") {
		return nil, false
	}
	j := 1
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		j++
	}
	id, err := strconv.Atoi(s[1:j])
	if err != nil || id >= len(fa.siteInstrs) {
		return nil, false
	}
	return fa.siteInstrs[id], true
}

// baseName is the name of a function, or of the generic function an
// instance was made from ("Collect" for slices.Collect[...]).
func baseName(f *ssa.Function) string {
	if f == nil {
		return ""
	}
	if f.Origin() != nil {
		f = f.Origin()
	}
	return f.Name()
}

// unwrapReverse looks through sort.Reverse(x): sorting in reverse is an
// order too.
func unwrapReverse(v ssa.Value) ssa.Value {
	c, ok := stripConversions(v).(*ssa.Call)
	if !ok || len(c.Call.Args) != 1 {
		return v
	}
	if f := c.Call.StaticCallee(); f != nil && f.Name() == "Reverse" && f.Pkg != nil && f.Pkg.Pkg.Path() == "sort" {
		return c.Call.Args[0]
	}
	return v
}

// lockedInOrderBefore reports whether one of the held events locked several
// rows of want's table in one defined order (ORDER BY, or the order of an
// earlier part of its statement), on want's connection and in a mode that
// covers want's: the "SELECT ... WHERE id = ANY($1) ORDER BY id FOR
// UPDATE, then update each row in a loop" shape. The loop's requests are
// for rows its transaction holds already, so it waits for nothing whatever
// the loop's order. As for alreadyHeld, a class stands for every row of its
// table: the loop is taken to write the rows locked first.
func (fa *fnAnalysis) lockedInOrderBefore(want *Event, held []int) bool {
	for _, h := range held {
		have := fa.events[h]
		if have != want && have.Lock.Class == want.Lock.Class && have.Lock.Class.IsRow() && sameConn(have.Conn, want.Conn) &&
			have.Rows.Multi && !have.Rows.Unordered() && lockgraph.Covers(have.Lock.Mode, want.Lock.Mode) {
			return true
		}
	}
	return false
}
