package lockseq

import (
	"go/token"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// keyBinding ties the statements' keys to the Go values passed for them:
// the $n of a statement an ORM built, while it runs (keys.go); the columns
// of each row lock's predicate and the values compared with them, and the
// keyed gates found in callees, from which a parent row locked first gates
// the rows of later statements chosen by the same values; and, while the
// edges from one SQL unit's earlier locks are drawn, the unit's own gates.
type keyBinding struct {
	// builtKeys are the values of the $n of a statement an ORM built
	// (sqlsite.Op.Keys), while it runs.
	builtKeys []ssa.Value
	// keyVals are the columns of each row lock's predicate and the
	// values compared with them; scopedIn the keyed gates of the copies
	// of a callee's events that the callee found (Event.Scoped).
	keyVals  map[int][]keyVal
	scopedIn map[int][]Scope
	// unitGates are, while the edges from one SQL unit's earlier locks
	// are drawn (request), the unit's locks taken before the held one.
	unitGates []int
}

// Keyed gates.
//
// A transaction that locks a parent row first (the run's executions row by
// shard, namespace, workflow and run; the inode's node row) and then the
// rows of other tables chosen by the same values (that run's timer rows,
// that inode's xattr rows, under whatever column names those tables give
// them) cannot deadlock with another execution over those rows: an
// execution that touches the same child rows names the same values, so it
// locks the same parent rows first and waits there. The same holds for a
// set: the node rows of the inodes of a slice, then the xattr rows of
// inode = ANY of that very slice.
//
// The values are compared as the function sees them (keyVal.key): the same
// Go value (the same SSA value, a constant, a parameter or a field of one),
// not the same column name. A parent keyed by another value than the
// children gates nothing. The parent's predicate must be nothing but those
// equalities and sets (lockmodel.RowSet.GateShape), so that it names
// exactly the rows its values name; and every value it compares must choose
// the child's rows in the same way (equality for equality, the same set for
// a set).

// keyVal is one column of a lock's predicate and the Go value it is
// compared with.
type keyVal struct {
	col string
	// set is set for col = ANY($n): the column holds one element of the
	// value.
	set bool
	// key names the value: an origin (see RowInfo.Key), or "v:" and the
	// name of a value of the function's own.
	key string
	// v is the value itself, where the function has it: two loads of
	// one variable with nothing that may write it in between are one
	// value (see sameLoad).
	v ssa.Value
}

// valueKey names a Go value for keyed gates: its origin where it has one (a
// parameter, a field of one, a constant), else the SSA value itself, or a
// field of a struct built in the function (sqlc's Params literals).
func (fa *fnAnalysis) valueKey(v ssa.Value) string {
	if v == nil {
		return ""
	}
	if o := fa.origin(v, 0); o != "" {
		return o
	}
	v = stripConversions(v)
	if _, ok := v.(*ssa.Const); ok {
		return ""
	}
	return "v:" + v.Name()
}

// mappable reports whether a value key means the same to a caller once
// mapped (a parameter's or a constant); a value of the function's own does
// not.
func mappable(key string) bool {
	_, _, ok := Ref(key).param()
	return ok || strings.HasPrefix(key, "c:")
}

// colSep separates the entries of RowInfo.Cols (a constant's text may hold
// commas).
const colSep = "\x1f"

// colEntry renders a keyVal for RowInfo.Cols.
func colEntry(kv keyVal) string {
	if kv.set {
		return kv.col + "~" + kv.key
	}
	return kv.col + "=" + kv.key
}

// parseCol reads an entry of RowInfo.Cols.
func parseCol(s string) (keyVal, bool) {
	i := strings.IndexAny(s, "=~")
	if i <= 0 {
		return keyVal{}, false
	}
	return keyVal{col: s[:i], set: s[i] == '~', key: s[i+1:]}, true
}

// setKeyVals records the columns of a row lock's predicate and the values
// the statement compares them with (keys are its $n values), and the
// mappable ones in the event's RowInfo.Cols for the callers.
func (fa *fnAnalysis) setKeyVals(ev int, rows lockmodel.RowSet, keys []ssa.Value) {
	if _, ok := fa.keyVals[ev]; ok {
		return
	}
	var kvs []keyVal
	add := func(list string, set bool) {
		for eq := range strings.SplitSeq(list, ",") {
			col, n, ok := strings.Cut(eq, "=")
			i, err := strconv.Atoi(n)
			if !ok || err != nil || i < 1 || i > len(keys) {
				continue
			}
			if k := fa.valueKey(keys[i-1]); k != "" {
				kvs = append(kvs, keyVal{col: col, set: set, key: k, v: keys[i-1]})
			}
		}
	}
	add(rows.EqParams, false)
	add(rows.SetParams, true)
	fa.storeKeyVals(ev, kvs)
}

// storeKeyVals keeps kvs as event ev's key values, and their mappable part
// in its RowInfo.Cols.
func (fa *fnAnalysis) storeKeyVals(ev int, kvs []keyVal) {
	if fa.keyVals == nil {
		fa.keyVals = map[int][]keyVal{}
	}
	fa.keyVals[ev] = kvs
	var cols []string
	for _, kv := range kvs {
		if mappable(kv.key) && !strings.Contains(kv.key, colSep) {
			cols = append(cols, colEntry(kv))
		}
	}
	fa.events[ev].Rows.Cols = strings.Join(cols, colSep)
}

// mapKeyVals gives the caller's copy i of a callee's event ev its key
// values, in the caller's terms (vals are the callee's parameter values at
// the call), and the callee's own scopes (Event.Scoped) as scopes of the
// copies of the callee's events (before).
func (fa *fnAnalysis) mapKeyVals(i int, ev *Event, vals []ssa.Value, before []int) {
	var kvs []keyVal
	for c := range strings.SplitSeq(ev.Rows.Cols, colSep) {
		kv, ok := parseCol(c)
		if !ok {
			continue
		}
		if kv.key, kv.v = fa.mapVal(kv.key, vals); kv.key != "" {
			kvs = append(kvs, kv)
		}
	}
	fa.storeKeyVals(i, kvs)
	for _, s := range ev.Scoped {
		if s.Event >= len(before) {
			continue
		}
		if fa.scopedIn == nil {
			fa.scopedIn = map[int][]Scope{}
		}
		if sc := (Scope{Event: before[s.Event], Cols: s.Cols}); !slices.Contains(fa.scopedIn[i], sc) {
			fa.scopedIn[i] = append(fa.scopedIn[i], sc)
		}
	}
}

// mapVal maps a callee's value key to this function's (see valueKey): a
// constant stays, a parameter (or a field of one) becomes the value passed
// for it, anything else means nothing here.
func (fa *fnAnalysis) mapVal(key string, vals []ssa.Value) (string, ssa.Value) {
	if strings.HasPrefix(key, "c:") {
		return key, nil
	}
	n, rest, ok := Ref(key).param()
	if !ok || n >= len(vals) || vals[n] == nil {
		return "", nil
	}
	v := vals[n]
	for rest != "" {
		field, more, _ := strings.Cut(rest, ".")
		fv := fieldValue(v, field)
		if fv == nil {
			break
		}
		v, rest = fv, more
	}
	k := fa.valueKey(v)
	if k == "" || rest == "" {
		return k, v
	}
	return k + "." + rest, nil
}

// scope returns, when event g is a keyed gate of event c (c's rows are
// chosen by every value g's predicate compares, in the same way), the
// columns of c that hold those values, in the order of g's, with c's
// table: "timers:run_id=,shard_id=". ok is false otherwise.
func (fa *fnAnalysis) scope(c, g int) (cols string, ok bool) {
	for _, s := range fa.scopedIn[c] {
		if s.Event == g {
			return s.Cols, true
		}
	}
	G, C := fa.events[g], fa.events[c]
	if g == c || !G.Lock.Class.IsRow() || !C.Lock.Class.IsRow() || G.Rows.GateShape == "" {
		return "", false
	}
	gk := fa.keyVals[g]
	if len(gk) == 0 || len(gk) != gateParams(G.Rows.RowSet) {
		// A parameter of the parent's predicate whose value is not known.
		return "", false
	}
	ck := fa.keyVals[c]
	var b strings.Builder
	b.WriteString(C.Lock.Class.Table())
	b.WriteByte(':')
	for i, x := range gk {
		j := slices.IndexFunc(ck, func(y keyVal) bool { return y.set == x.set && (y.key == x.key || fa.sameLoad(x.v, y.v)) })
		if j < 0 {
			return "", false
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(colEntry(keyVal{col: ck[j].col, set: x.set}))
	}
	return b.String(), true
}

// gateParams counts the parameters of a gate's predicate: its equality and
// set columns compared with a $n.
func gateParams(rs lockmodel.RowSet) int {
	n := 0
	for _, list := range []string{rs.EqParams, rs.SetParams} {
		if list != "" {
			n += strings.Count(list, ",") + 1
		}
	}
	return n
}

// scopes lists, for the summary, the function's events that are keyed
// gates of event c (see scope), with the columns.
func (fa *fnAnalysis) scopes(c int) []Scope {
	if !fa.events[c].Lock.Class.IsRow() {
		return nil
	}
	var out []Scope
	for g := range c {
		// A gate stands before the lock it gates: an earlier event.
		if cols, ok := fa.scope(c, g); ok {
			out = append(out, Scope{Event: g, Cols: cols})
		}
	}
	return out
}

// keyedGates returns the keyed gates of the pair of events h and w: row
// locks surely held from before h until w is requested (as for gates)
// whose rows are chosen by the same values as the rows of h, of w, or of
// both (lockgraph.KeyedGate: a side the gate does not scope is empty).
// The held lock itself is one for w when w's rows lie within h's row (the
// ledger, then that ledger's accounts), and so is an earlier lock of w's
// own statement for h when h's rows lie within it (each turn of a loop
// locks a ledger, then its accounts, and the next turn waits for the next
// ledger while it holds the accounts of the last).
func (fa *fnAnalysis) keyedGates(h, w int, st *state) []KeyedRef {
	if !fa.events[h].Lock.Class.IsRow() || !fa.events[w].Lock.Class.IsRow() {
		return nil
	}
	var out []KeyedRef
	add := func(g int, hc, wc string) {
		e := fa.events[g]
		l := e.Lock
		l.Class = l.Class.Concrete()
		out = append(out, KeyedRef{Event: g, Gate: lockgraph.KeyedGate{Lock: l, Shape: e.Rows.GateShape, Held: hc, Wanted: wc}})
	}
	for _, g := range fa.gateCandidates(h, w, st) {
		hc, ok1 := fa.scope(h, g)
		wc, ok2 := fa.scope(w, g)
		if ok1 || ok2 {
			add(g, hc, wc)
		}
	}
	if wc, ok := fa.scope(w, h); ok && fa.strictRowGate(h) {
		add(h, "", wc)
	}
	if H, W := fa.events[h], fa.events[w]; fa.mustAt[h][w] && H.Tx == W.Tx && H.Tx != "" && fa.strictRowGate(w) {
		// w's statement surely held a row when h was requested, in the
		// same transaction: whenever h is still held at w, so is that
		// row (a row lock lasts until the transaction ends), although
		// the first turn of a loop reaches w holding neither.
		if hc, ok := fa.scope(h, w); ok {
			add(w, hc, "")
		}
	}
	return out
}

// strictRowGate reports whether event g can stand as a keyed gate: a row
// lock that waits and is held until the transaction ends.
func (fa *fnAnalysis) strictRowGate(g int) bool {
	e := fa.events[g]
	return e.Lock.Class.IsRow() && (e.Lock.Waits || e.Try) && e.Hold != HoldNone
}

// heldKeyed returns the gates of refs whose events hold a lock at all here
// (a callee's gate on its caller's handle holds only where that handle is
// a transaction), sorted and without repeats.
func (fa *fnAnalysis) heldKeyed(refs []KeyedRef) []lockgraph.KeyedGate {
	var out []lockgraph.KeyedGate
	for _, r := range refs {
		if r.Event < len(fa.events) && fa.events[r.Event].Hold != HoldNone && !slices.Contains(out, r.Gate) {
			out = append(out, r.Gate)
		}
	}
	sortKeyed(out)
	return out
}

// gateCandidates lists the events surely held both when h was requested
// and now: the gates of gateEvents before the strictGate filter.
func (fa *fnAnalysis) gateCandidates(h, w int, st *state) []int {
	var out []int
	for g := range fa.mustAt[h] {
		e := fa.events[g]
		if g == h || g == w || !st.must[g] || !e.Lock.Waits && !e.Try || e.Hold == HoldNone {
			continue
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// sortKeyed orders keyed gates deterministically.
func sortKeyed(ks []lockgraph.KeyedGate) {
	slices.SortFunc(ks, func(a, b lockgraph.KeyedGate) int {
		if c := lockgraph.CompareClasses(a.Lock.Class, b.Lock.Class); c != 0 {
			return c
		}
		return strings.Compare(a.Shape+"|"+a.Held+"|"+a.Wanted, b.Shape+"|"+b.Held+"|"+b.Wanted)
	})
}

// underKeyedGate reports whether event g, surely held at a row finding's
// request, is a keyed gate of its rows (and of its first lock, for
// CallerOrder): two executions that lock the same rows lock g's rows
// first.
//
// For a loop's order, a parent locked anew in each turn of an unordered loop
// (keyed by the loop's element) is no gate: its own order is the loop's,
// reported as such, and the children's report names the same loop.
func (fa *fnAnalysis) underKeyedGate(f RowFinding, g int) bool {
	if _, ok := fa.scope(f.event, g); !ok {
		return false
	}
	if f.Rule == LoopOrder {
		for _, l := range fa.unorderedLoops() {
			for _, kv := range fa.keyVals[g] {
				if kv.v != nil && derivesFrom(kv.v, l.elems) {
					return false
				}
			}
		}
	}
	if f.first >= 0 {
		_, ok := fa.scope(f.first, g)
		return ok
	}
	return true
}

// mergeKeyed joins two lists of keyed gates, sorted and without repeats.
func mergeKeyed(a, b []KeyedRef) []KeyedRef {
	out := slices.Clone(a)
	for _, k := range b {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(x, y KeyedRef) int {
		if x.Event != y.Event {
			return x.Event - y.Event
		}
		return strings.Compare(x.Gate.Shape+"|"+x.Gate.Held+"|"+x.Gate.Wanted, y.Gate.Shape+"|"+y.Gate.Held+"|"+y.Gate.Wanted)
	})
	return out
}

// sameLoad reports whether two values are loads of one local variable (or
// of one field of it) that hold the same value whenever both run: nothing
// that may write the variable lies on a path from one to the other (ino
// scanned once, then passed to three statements). A variable whose address
// escapes other than into a call is never one.
func (fa *fnAnalysis) sameLoad(a, b ssa.Value) bool {
	la, ok1 := stripConversions(a).(*ssa.UnOp)
	lb, ok2 := stripConversions(b).(*ssa.UnOp)
	if !ok1 || !ok2 || la.Op != token.MUL || lb.Op != token.MUL || la.Parent() != fa.fn || lb.Parent() != fa.fn {
		return false
	}
	rootA, pathA, okA := location(la.X)
	rootB, pathB, okB := location(lb.X)
	if !okA || !okB || rootA != rootB || pathA != pathB {
		return false
	}
	writers, ok := writersOf(rootA, pathA)
	if !ok {
		return false
	}
	for _, w := range writers {
		if between(la, w, lb) || between(lb, w, la) {
			return false
		}
	}
	return true
}

// location returns the local variable an address points into and the
// field path from it ("", ".Inode").
func location(addr ssa.Value) (*ssa.Alloc, string, bool) {
	path := ""
	for range 8 {
		switch x := addr.(type) {
		case *ssa.Alloc:
			return x, path, true
		case *ssa.FieldAddr:
			path = "." + strconv.Itoa(x.Field) + path
			addr = x.X
		default:
			return nil, "", false
		}
	}
	return nil, "", false
}

// writersOf lists the instructions that may write the part path of the
// local variable root: stores to it (or to all of it, or to a part of it),
// and calls that are handed its address or a field's. ok is false when the
// address escapes otherwise (stored, captured, merged in a φ): then any
// call may write it.
func writersOf(root *ssa.Alloc, path string) (writers []ssa.Instruction, ok bool) {
	type addrAt struct {
		v    ssa.Value
		path string
	}
	work := []addrAt{{root, ""}}
	overlaps := func(p string) bool {
		return strings.HasPrefix(p+".", path+".") || strings.HasPrefix(path+".", p+".")
	}
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		refs := a.v.Referrers()
		if refs == nil {
			continue
		}
		for _, r := range *refs {
			switch x := r.(type) {
			case *ssa.FieldAddr:
				work = append(work, addrAt{x, a.path + "." + strconv.Itoa(x.Field)})
			case *ssa.UnOp:
				if x.Op != token.MUL {
					return nil, false
				}
			case *ssa.DebugRef:
			case *ssa.Store:
				if x.Addr != a.v {
					return nil, false // the address itself is stored
				}
				if overlaps(a.path) {
					writers = append(writers, x)
				}
			case *ssa.MakeInterface:
				// Scan(&ino): the address, boxed for a call only.
				for _, u := range *x.Referrers() {
					if _, isCall := u.(ssa.CallInstruction); !isCall {
						if _, isStore := u.(*ssa.Store); !isStore || !sliceOfCallArgs(u.(*ssa.Store)) {
							return nil, false
						}
					}
					writers = append(writers, u)
				}
			case ssa.CallInstruction:
				writers = append(writers, x)
			default:
				return nil, false
			}
		}
	}
	return writers, true
}

// sliceOfCallArgs reports whether a store puts a value into the backing
// array of a variadic call's arguments (Scan(&a, &b)): it reaches that
// call only.
func sliceOfCallArgs(st *ssa.Store) bool {
	ia, ok := st.Addr.(*ssa.IndexAddr)
	if !ok {
		return false
	}
	arr, ok := ia.X.(*ssa.Alloc)
	return ok && arr.Comment == "varargs"
}

// between reports whether instruction w can run after a and before b in
// one run of the function.
func between(a, w, b ssa.Instruction) bool {
	return reaches(a, w) && reaches(w, b)
}

// reaches reports whether instruction b can run after instruction a.
func reaches(a, b ssa.Instruction) bool {
	ba, bb := a.Block(), b.Block()
	if ba == bb && index(a) < index(b) {
		return true
	}
	seen := map[*ssa.BasicBlock]bool{}
	work := slices.Clone(ba.Succs)
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if x == bb {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		work = append(work, x.Succs...)
	}
	return false
}

// index returns an instruction's position in its block.
func index(instr ssa.Instruction) int {
	return slices.Index(instr.Block().Instrs, instr)
}
