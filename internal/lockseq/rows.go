package lockseq

import (
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// rowRules is what the row-order rules collect over a function's visits:
// their candidate findings, those a later visit withdrew, the range loops in
// no defined order (loops.go), and the guards of the copies of callees'
// events.
type rowRules struct {
	// loops are the range loops in no defined order, found once.
	loops *[]*rangeLoop
	// rowCands are the row-order findings of the function's visits so
	// far; rowVeto those a later visit withdrew (see vetoRows).
	rowCands []RowFinding
	rowVeto  map[string]bool
	// innerGuards are, for the copies of a callee's events, the copies of
	// the callee's events surely held when the callee requests them
	// (Event.Guards).
	innerGuards map[int][]int
	// entered is the call being applied and the callee's summary, set by
	// enter, for heldByCaller.
	entered    entryKey
	enteredSum *Summary
}

// RowInfo is what an event knows about the rows its lock takes: the lock
// model's row set, plus where the Go value bound to the key comes from.
type RowInfo struct {
	lockmodel.RowSet
	// Key names the Go value bound to the key of a single-row lock (or of
	// an advisory lock), in the function's terms: "p2" for parameter 2,
	// "p1.From" for a field of one, "c:42" for a constant, "" when it is
	// none of these.
	Key string
	// Scope lists, comma-separated, the origins (as Key names them) of
	// the values the statement's other equality conditions compare with:
	// "p1" when WHERE id = $1 AND warehouse_id = $2 binds $2 to parameter
	// 1. Every row it locks has that value in that column.
	Scope string
	// Cols lists the columns of the predicate compared with a value a
	// caller can name (a parameter, a field of one, a constant), as
	// "col=p1.RunID" for an equality and "col~p2" for = ANY of a set:
	// the callers' copies map them to their own values (keyed gates).
	// Entries are separated by colSep.
	Cols string
	// Pending marks an unordered multi-row write (UPDATE, DELETE, upsert)
	// run on a handle that is a transaction only if the caller's is: the
	// caller that makes it one reports it.
	Pending bool
	// Read names the value bound to the key when the function read it
	// from the database ("db:oldSlot" for a variable a Scan filled,
	// "db:Get(...).SlotID" for a field of a lookup's result), and
	// ReadFrom lists, comma-separated, the tables the reading statements
	// touched (readkeys.go). Both are empty when Key is set.
	Read, ReadFrom string
}

// RowRule names one of the row-order rules.
type RowRule uint8

// The row-order rules (the cycle rules of lockgraph work on tables and
// advisory keys; these work on the rows of one table).
const (
	// UnorderedRows: one statement locks several rows in no defined order.
	UnorderedRows RowRule = iota + 1
	// LoopOrder: a transaction locks one row (or advisory key) per
	// iteration of a loop over a map, or over a slice in no defined order.
	LoopOrder
	// CallerOrder: a transaction locks two rows of one table with keys
	// its caller chooses, in the order the caller passes them.
	CallerOrder
)

// RowFinding is a finding of a row-order rule in one function.
type RowFinding struct {
	Rule RowRule
	// Pos is where it is reported: the statement (or the call that runs
	// it) that takes the lock.
	Pos  token.Pos
	Lock lockgraph.Lock
	Rows RowInfo
	// Path leads from the function to the statement.
	Path []lockgraph.Frame
	// First leads to the statement that locked the first row
	// (CallerOrder).
	First []lockgraph.Frame
	// Keys names the two Go values of a CallerOrder finding, and Read
	// says which of them the function read from the database.
	Keys [2]string
	Read [2]bool
	// Loop says what a LoopOrder loop ranges over ("a map").
	Loop string
	// Func is the function the finding is in.
	Func string
	// Lent is set when the function runs the statement on a transaction
	// its caller began and lends it (borrowedTx): the caller, which sees
	// what the transaction locked before (a parent row, a gate), judges
	// the statement again at each call. The function's own finding
	// stands only where no analysed code calls it (WithdrawLent).
	Lent bool
	// fn is the function the finding is in, for the gates its callers
	// hold (entry.go).
	fn *ssa.Function
	// event is the index of the finding's lock request among the
	// function's events, -1 for a statement queued in a batch; first is
	// that of the first lock of a CallerOrder finding, -1 otherwise.
	event, first int
	// events counts the function's events, which its summary keeps in
	// the same order unless it merged some (limits.go).
	events int
}

// OrderedLock is a blocking lock of several rows of one table in a defined
// order (SELECT ... ORDER BY ... FOR UPDATE): two of them that order the same
// table differently can deadlock.
type OrderedLock struct {
	Table string
	Order string
	Mode  lockmodel.Mode
	// Pos is the statement's position, and What describes it.
	Pos  token.Position
	What string
	Func string
	// Pkg is the path of the package the statement is in.
	Pkg string
	// At is the statement's position in the package that found it; it
	// means nothing in another package.
	At token.Pos
}

// rowInfo builds the row information of an event from the lock model's
// effect and the query arguments bound to it.
func (fa *fnAnalysis) rowInfo(eff lockmodel.Effect, keys []ssa.Value) RowInfo {
	ri := RowInfo{RowSet: eff.Rows}
	param := eff.Rows.KeyParam
	if eff.Lock.Kind == lockmodel.Advisory && len(eff.Lock.Key.Parts) == 1 {
		part := eff.Lock.Key.Parts[0]
		param = part.Param
		if ps := dollarRE.FindAllStringSubmatch(part.Template, -1); param == 0 && len(ps) == 1 {
			// hashtext('wallet:' || $1): keyed by $1.
			param, _ = strconv.Atoi(ps[0][1])
		}
	}
	if param > 0 && param <= len(keys) {
		ri.Key = fa.origin(keys[param-1], 0)
		if ri.Key == "" && eff.Lock.Kind == lockmodel.Row {
			fa.setRead(&ri, keys[param-1], "")
		}
	}
	var scope []string
	for eq := range strings.SplitSeq(eff.Rows.EqParams, ",") {
		col, n, ok := strings.Cut(eq, "=")
		i, err := strconv.Atoi(n)
		if !ok || err != nil || col == eff.Rows.KeyColumn || i < 1 || i > len(keys) {
			continue
		}
		if o := fa.origin(keys[i-1], 0); o != "" && !strings.HasPrefix(o, "c:") {
			scope = append(scope, o)
		}
	}
	ri.Scope = strings.Join(scope, ",")
	return ri
}

// inScope reports whether every row of event ev is scoped by the value
// whose origin is key: one of its equality conditions compares a column
// with that value.
func (fa *fnAnalysis) inScope(ev int, key string) bool {
	if ev < 0 || key == "" {
		return false
	}
	return slices.Contains(strings.Split(fa.events[ev].Rows.Scope, ","), key)
}

// maxOriginDepth bounds the steps origin takes back through loads, fields
// and locals: enough for a field of a local copied from a field of an
// embedded struct of a parameter (task := opts.Task; task.ID).
const maxOriginDepth = 8

// origin names where a Go value comes from, in the function's terms (see
// RowInfo.Key). Values computed from others (min, max, a swap that merges
// two values in a φ) have no origin: the code chose their order.
func (fa *fnAnalysis) origin(v ssa.Value, depth int) string {
	if v == nil || depth > maxOriginDepth {
		return ""
	}
	if c := goConst(v); c != "" {
		return "c:" + c
	}
	switch x := stripConversions(v).(type) {
	case *ssa.Parameter:
		if i := slices.Index(fa.fn.Params, x); i >= 0 {
			return "p" + strconv.Itoa(i)
		}
	case *ssa.FreeVar:
		i := slices.Index(fa.fn.FreeVars, x)
		if i < 0 {
			break
		}
		// The enclosing function chose the captured value: a key it
		// computed (min, max, a swap) or read is no caller's choice.
		if parent, b, ok := boundValue(x); parent != nil {
			if !ok {
				return ""
			}
			po := (&fnAnalysis{fn: parent}).origin(b, depth+1)
			if !callerChosen(po) {
				return po
			}
		}
		return "p" + strconv.Itoa(len(fa.fn.Params)+i)
	case *ssa.Field:
		if o := fa.origin(x.X, depth+1); o != "" {
			return o + "." + fieldName(x.X.Type(), x.Field)
		}
	case *ssa.FieldAddr:
		// The address of a field of a value with an origin: the field
		// of an embedded struct (opts.Task, promoted through
		// opts.BaseOpts) is read through it.
		if o := fa.origin(x.X, depth+1); o != "" {
			return o + "." + fieldName(x.X.Type(), x.Field)
		}
	case *ssa.UnOp:
		if x.Op != token.MUL {
			break
		}
		switch addr := x.X.(type) {
		case *ssa.FieldAddr:
			if o := fa.origin(addr.X, depth+1); o != "" {
				return o + "." + fieldName(addr.X.Type(), addr.Field)
			}
			if root, ok := addr.X.(*ssa.Alloc); ok {
				// A field filled from a locked row's key column.
				return fa.scannedKey(root, addr.Field)
			}
		case *ssa.FreeVar:
			// A variable a closure captures by reference: named like
			// the free variable itself.
			return fa.origin(addr, depth+1)
		case *ssa.Alloc:
			return fa.origin(addr, depth+1)
		}
	case *ssa.Extract:
		// f, t := pick(from, to), where pick returns its arguments.
		if c, ok := x.Tuple.(*ssa.Call); ok {
			if arg := passedThrough(c, x.Index); arg != nil {
				return fa.origin(arg, depth+1)
			}
		}
	case *ssa.Call:
		if arg := passedThrough(x, 0); arg != nil {
			return fa.origin(arg, depth+1)
		}
	case *ssa.Alloc:
		// A local variable (a parameter the function takes the address
		// of, a struct parameter held by value) stored to once.
		if st := onlyStore(x, nil); st != nil {
			return fa.origin(st.Val, depth+1)
		}
		if decoded(x) {
			return "in:" + x.Comment
		}
		return fa.scannedKey(x, -1)
	}
	return ""
}

// decoded reports whether a local variable is filled by decoding a request
// (json.Decoder.Decode(&req), json.Unmarshal(b, &req), c.Bind(&req), ...):
// its values are the client's, in the client's order.
func decoded(a *ssa.Alloc) bool {
	refs := slices.Clone(*a.Referrers())
	for i := 0; i < len(refs); i++ {
		ref := refs[i]
		switch x := ref.(type) {
		case *ssa.MakeInterface:
			refs = append(refs, *x.Referrers()...)
			continue
		case *ssa.ChangeType:
			refs = append(refs, *x.Referrers()...)
			continue
		}
		call, ok := ref.(ssa.CallInstruction)
		if !ok {
			continue
		}
		name := ""
		if c := call.Common(); c.IsInvoke() {
			name = c.Method.Name()
		} else if f := c.StaticCallee(); f != nil {
			name = f.Name()
		}
		if strings.Contains(name, "Decode") || strings.Contains(name, "Unmarshal") ||
			strings.HasPrefix(name, "Bind") || strings.HasPrefix(name, "ShouldBind") ||
			name == "BodyParser" || name == "ReadJSON" {
			return true
		}
	}
	return false
}

// boundValue returns the value the enclosing function binds to free
// variable fv of a closure, looking through a variable captured by
// reference to the one value stored in it. parent is nil when the closure's
// creation is not found; ok is false when the variable is assigned more than
// once (a swap: its value is then computed, not passed).
func boundValue(fv *ssa.FreeVar) (parent *ssa.Function, v ssa.Value, ok bool) {
	fn := fv.Parent()
	parent = fn.Parent()
	if parent == nil {
		return nil, nil, false
	}
	idx := slices.Index(fn.FreeVars, fv)
	for _, b := range parent.Blocks {
		for _, instr := range b.Instrs {
			mc, isMC := instr.(*ssa.MakeClosure)
			if !isMC || mc.Fn != fn || idx >= len(mc.Bindings) {
				continue
			}
			bound := mc.Bindings[idx]
			if a, isAlloc := bound.(*ssa.Alloc); isAlloc {
				st := onlyStore(a, nil)
				if st == nil {
					if decoded(a) {
						return parent, a, true
					}
					return parent, nil, false
				}
				return parent, st.Val, true
			}
			return parent, bound, true
		}
	}
	return nil, nil, false
}

// fieldValue returns the value stored into field of a struct literal (a
// local built field by field, then loaded: db.Params{ID: from}), or nil.
func fieldValue(v ssa.Value, field string) ssa.Value {
	load, ok := stripConversions(v).(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil
	}
	a, ok := load.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	if st := onlyStore(a, []string{field}); st != nil {
		return st.Val
	}
	return nil
}

// mapKey maps a callee's key origin to this function's terms at a call
// site where vals are the callee's parameter values.
func (fa *fnAnalysis) mapKey(key string, vals []ssa.Value) string {
	n, rest, ok := Ref(key).param()
	if !ok || n >= len(vals) {
		if strings.HasPrefix(key, "c:") {
			return key
		}
		return ""
	}
	o := fa.origin(vals[n], 0)
	if o == "" && rest != "" {
		// A field of a struct the caller builds for the call
		// (sqlc's Params structs).
		field, more, _ := strings.Cut(rest, ".")
		if fv := fieldValue(vals[n], field); fv != nil {
			o = fa.origin(fv, 0)
			if o != "" && more != "" {
				o += "." + more
			}
			return o
		}
	}
	if o == "" || rest == "" {
		return o
	}
	return o + "." + rest
}

// callerChosen reports whether a key origin is a value the caller passes,
// or one decoded from a client's request.
func callerChosen(key string) bool {
	_, _, ok := Ref(key).param()
	return ok || strings.HasPrefix(key, "in:")
}

// report records a row finding once per rule and position.
func (fa *fnAnalysis) reportRows(f RowFinding) {
	if (f.Rule == UnorderedRows || f.Rule == LoopOrder) && !lockmodel.ModesConflict(f.Lock.Mode, f.Lock.Mode) {
		// Two executions of the same code take these rows in a mode
		// that does not conflict with itself (FOR KEY SHARE of a
		// foreign key check, FOR SHARE): neither waits for the other,
		// whatever the order.
		return
	}
	k := rowKey(f.Rule, fa.position(f.Pos), f.Lock.Class)
	if fa.rowVeto[k] || slices.ContainsFunc(fa.rowCands, func(o RowFinding) bool {
		return rowKey(o.Rule, fa.position(o.Pos), o.Lock.Class) == k
	}) {
		return
	}
	f.Func = fa.name
	fa.rowCands = append(fa.rowCands, f)
}

// vetoRows withdraws the finding of rule at pos: on a later visit of the
// fixpoint the lock turned out to be held already. The sets of held locks
// only grow from one visit to the next, so a veto stands.
func (fa *fnAnalysis) vetoRows(rule RowRule, pos token.Pos, class lockgraph.Class) {
	if fa.rowVeto == nil {
		fa.rowVeto = map[string]bool{}
	}
	fa.rowVeto[rowKey(rule, fa.position(pos), class)] = true
}

// flushRows passes the function's findings that no later visit withdrew to
// the analysis, once per rule, position and lock.
func (fa *fnAnalysis) flushRows() {
	for _, f := range fa.rowCands {
		k := rowKey(f.Rule, fa.position(f.Pos), f.Lock.Class)
		if fa.rowVeto[k] || fa.a.rowSeen[k] || fa.underGate(f) {
			continue
		}
		fa.a.rowSeen[k] = true
		f.fn, f.events = fa.fn, len(fa.events)
		fa.a.Rows = append(fa.a.Rows, f)
		if f.Rule == CallerOrder && f.Lent {
			fa.sum.LentPairs = append(fa.sum.LentPairs, LentPair{First: f.first, Then: f.event, Key: f.LentKey()})
		}
	}
}

// underGate reports whether, on every path to a row finding's lock request,
// the function surely holds a guard: an advisory lock (on a constant key,
// or a key known only at run time, which as for cycles counts as the usual
// per-tenant guard), LOCK TABLE in a mode that excludes itself, or a row
// with a constant key. Two executions of the function then take the guard
// first and run one after the other, so the order in which each locks its
// rows cannot deadlock them. The locks of the finding itself are no guard;
// nor is a row keyed by a caller's value, which two executions may choose
// differently.
func (fa *fnAnalysis) underGate(f RowFinding) bool {
	if f.event < 0 {
		return false
	}
	for _, g := range fa.guardEvents(f.event) {
		e := fa.events[g]
		if g == f.event || g == f.first || e.Hold == HoldNone || !e.Lock.Waits && !e.Try ||
			e.Lock.Class.Concrete() == f.Lock.Class.Concrete() || !lockmodel.ModesConflict(e.Lock.Mode, e.Lock.Mode) {
			continue
		}
		switch c := e.Lock.Class; {
		case c.IsAdvisory(), c.IsTable():
			return true
		case c.IsRow() && e.Rows.KeyColumn != "" && e.Rows.KeyParam == 0 && !e.Rows.Multi:
			return true
		case c.IsRow() && e.Rows.KeyColumn != "" && !e.Rows.Multi && e.Rows.Key != "" &&
			fa.inScope(f.event, e.Rows.Key) && (f.first < 0 || fa.inScope(f.first, e.Rows.Key)):
			// The parent row keyed by a caller's value, and the rows
			// of the finding all within it (WHERE id = $1 AND
			// warehouse_id = $2 after locking that warehouse): two
			// executions that lock the same rows lock the same
			// parent first.
			return true
		case fa.underKeyedGate(f, g):
			return true
		}
	}
	return false
}

// guardEvents lists the events surely held whenever event ev is requested,
// sorted: the function's own (mustAt) and, for a callee's event, those the
// callee surely held then (innerGuards), where they hold a lock at all.
func (fa *fnAnalysis) guardEvents(ev int) []int {
	var out []int
	for g := range fa.mustAt[ev] {
		out = append(out, g)
	}
	out = append(out, fa.innerGuards[ev]...)
	out = slices.DeleteFunc(out, func(g int) bool {
		e := fa.events[g]
		return g == ev || e.Hold == HoldNone || !e.Lock.Waits && !e.Try
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// rowKey identifies a row finding.
func rowKey(rule RowRule, pos string, class lockgraph.Class) string {
	return strconv.Itoa(int(rule)) + "@" + pos + "@" + class.String()
}

// checkRows applies the row-order rules to a lock this function requests
// by running SQL at site. unit is set when the statement runs in a batch or
// multi-statement string, whose locks are held until the unit ends.
func (fa *fnAnalysis) checkRows(site ssa.Instruction, ev int, eff lockmodel.Effect, keys []ssa.Value, unit bool, st *state) {
	e := fa.events[ev]
	if !e.Lock.Waits || (eff.Lock.Kind != lockmodel.Row && eff.Lock.Kind != lockmodel.Advisory) {
		return
	}
	held := e.Hold != HoldNone || unit
	if eff.Lock.Kind == lockmodel.Row && eff.Rows.Multi && eff.Rows.Order != "" && !eff.Rows.PreLocked && strings.HasPrefix(eff.Verb, "SELECT") {
		pos := fa.sourcePosition(site.Pos())
		if !slices.ContainsFunc(fa.a.Ordered, func(o OrderedLock) bool { return o.Pos == pos && o.Table == eff.Lock.Table }) {
			fa.a.Ordered = append(fa.a.Ordered, OrderedLock{
				Table: eff.Lock.Table, Order: eff.Rows.Order, Mode: eff.Lock.Mode,
				Pos: pos, What: e.Path[len(e.Path)-1].What, Func: fa.name, At: site.Pos(), Pkg: fa.pkgPath(),
			})
		}
	}
	if eff.Rows.Unordered() {
		reads := eff.Lock.Kind == lockmodel.Advisory || strings.HasPrefix(eff.Verb, "SELECT")
		switch {
		case reads:
		case !eff.Rows.SetPredicate():
			// A write to the rows of a join or of a whole table runs in
			// the plan's order, the same for every execution: only a
			// set of keys or a range chosen per call varies.
			return
		case e.Hold == HoldCond && !unit:
			// A DBTX helper: a transaction only if its caller's handle is.
			e.Rows.Pending = true
			return
		case !held:
			// An autocommit write holds its rows only while it runs.
			return
		case fa.alreadyHeld(e, sortedKeys(st.held)):
			// Locked in order before (SELECT ... ORDER BY id FOR
			// UPDATE, then UPDATE the same rows).
			fa.vetoRows(UnorderedRows, site.Pos(), e.Lock.Class)
			return
		}
		lent := !unit && fa.borrowedTx(e)
		if lent {
			// What the transaction locked before, which may order or
			// gate these rows, is the caller's to see: its copy judges
			// them again (checkMapped).
			e.Rows.Pending = true
		}
		fa.reportRows(RowFinding{Rule: UnorderedRows, Pos: site.Pos(), Lock: e.Lock, Rows: e.Rows, Path: e.Path, Lent: lent, event: ev, first: -1})
		return
	}
	if !held || constantKey(eff) {
		return
	}
	vals := keys
	if p := eff.Rows.KeyParam; p > 0 && p <= len(keys) {
		vals = keys[p-1 : p]
	}
	if over, ok := fa.inUnorderedLoop(site, e, vals); ok && !fa.lockedInOrderBefore(e, sortedKeys(st.held)) {
		fa.reportRows(RowFinding{Rule: LoopOrder, Pos: site.Pos(), Lock: e.Lock, Rows: e.Rows, Path: e.Path, Loop: over, event: ev, first: -1})
	}
}

// borrowedTx reports whether event e holds its lock until the end of a
// transaction that the function's caller began: one it reaches through a
// parameter (the receiver's field or a context included). A closure's
// transaction is its enclosing function's or a runner's, whose
// statements are its own: it lends nothing.
func (fa *fnAnalysis) borrowedTx(e *Event) bool {
	_, _, param := e.Tx.param()
	return e.Hold == HoldTx && param && fa.fn.Parent() == nil
}

// LentKey names the lent finding of a statement in the function that
// lends it (the first frame of path, which ends at the statement) and its
// lock's class: the same in the function's own analysis and at its
// callers, in any package.
func LentKey(path []lockgraph.Frame, class lockgraph.Class) string {
	if len(path) == 0 {
		return ""
	}
	return path[0].Func + "\x00" + path[len(path)-1].Pos.String() + "\x00" + class.String()
}

// WithdrawLent drops the lent findings (RowFinding.Lent) that a call in the
// package judged again (Lent): the statement is reported, if at all, where
// the transaction is begun. A driver that sees the whole program withdraws,
// in the same way, those a call in another package judged.
//
// The same goes for the lent edges (lockgraph.Edge.Lent) that a call in the
// package drew again with its own gates.
//
// The package's functions (funcs) leave standing what they lend to a
// function they keep as a value: anything may call that, with a
// transaction that holds nothing first.
func (a *Analysis) WithdrawLent(funcs []*ssa.Function) {
	_, stored := a.callSites(funcs)
	for fn := range stored {
		for _, k := range a.lentKeys(fn) {
			a.judgeLent(k, false)
		}
	}
	a.Rows = slices.DeleteFunc(a.Rows, func(f RowFinding) bool {
		k := f.LentKey()
		return f.Lent && k != "" && a.Lent[k]
	})
	a.Edges = slices.DeleteFunc(a.Edges, func(e *lockgraph.Edge) bool {
		if e.Lent == "" || !a.Lent[e.Lent] {
			return false
		}
		delete(a.edgeFn, e)
		delete(a.EdgePos, e)
		return true
	})
}

// lentKeys names what fn's summary leaves for its callers to judge (see
// LentKey and LentEdgeKey): its lent row findings and edges. For the
// wrapper of a method value, those of the method.
func (a *Analysis) lentKeys(fn *ssa.Function) []string {
	if m, ok := fn.Object().(*types.Func); ok && fn.Synthetic != "" {
		if f := fn.Prog.FuncValue(m); f != nil && f != fn {
			fn = f
		}
	}
	s := a.summaryOf(fn)
	if s == nil {
		return nil
	}
	var keys []string
	for _, e := range s.Events {
		if e.Rows.Pending && e.Hold == HoldTx {
			keys = append(keys, LentKey(e.Path, e.Lock.Class))
		}
	}
	for _, p := range s.LentPairs {
		keys = append(keys, p.Key)
	}
	for _, p := range s.Pairs {
		if p.Lent != "" {
			keys = append(keys, p.Lent)
		}
	}
	return keys
}

// judgeLent records a call's verdict on a lent finding: harmless there
// (true), or standing (false), which wins over any other call's.
func (a *Analysis) judgeLent(key string, harmless bool) {
	if key == "" {
		return // a finding with no path names no statement
	}
	if old, ok := a.Lent[key]; ok {
		harmless = harmless && old
	}
	a.Lent[key] = harmless
}

// LentKey names a lent finding as its callers name it (see LentKey).
func (f RowFinding) LentKey() string {
	return LentKey(f.Path, f.Lock.Class)
}

// checkMapped applies the row-order rules to the caller's copy out of a
// callee's event ev, at the call site; vals are the callee's parameter
// values there.
//
// before are the caller's copies of the callee's earlier events: locks the
// callee took before this one, in the same transaction.
func (fa *fnAnalysis) checkMapped(site ssa.Instruction, i int, ev *Event, vals []ssa.Value, st *state, before []int) {
	out := fa.events[i]
	for _, g := range ev.Guards {
		if g < len(before) && !slices.Contains(fa.innerGuards[i], before[g]) {
			if fa.innerGuards == nil {
				fa.innerGuards = map[int][]int{}
			}
			fa.innerGuards[i] = append(fa.innerGuards[i], before[g])
		}
	}
	out.Rows = ev.Rows
	out.Rows.Key = fa.mapKey(ev.Rows.Key, vals)
	// A key the callee read is its own business; one the caller read and
	// passed is the caller's.
	out.Rows.Read, out.Rows.ReadFrom = "", ""
	if n, rest, ok := Ref(ev.Rows.Key).param(); ok && out.Rows.Key == "" && n < len(vals) && vals[n] != nil {
		fa.setRead(&out.Rows, vals[n], rest)
	}
	var scope []string
	for o := range strings.SplitSeq(ev.Rows.Scope, ",") {
		if m := fa.mapKey(o, vals); m != "" && !strings.HasPrefix(m, "c:") {
			scope = append(scope, m)
		}
	}
	out.Rows.Scope = strings.Join(scope, ",")
	out.Rows.Pending = false
	fa.mapKeyVals(i, ev, vals, before)
	fa.recordHeldRow(site, i, ev, len(before), st)
	if ev.Rows.Pending {
		if ev.Hold == HoldTx {
			// A lent finding of the callee's: judged here instead
			// (reported here, if at all).
			fa.a.judgeLent(LentKey(ev.Path, ev.Lock.Class), true)
		}
		switch out.Hold {
		case HoldCond:
			out.Rows.Pending = true
		case HoldTx, HoldConnTx:
			if fa.alreadyHeld(out, notAlternatives(fa.events, out, sortedKeys(st.held))) ||
				fa.alreadyHeld(out, notAlternatives(fa.events, out, before)) {
				// Locked in order before, by the caller or by an
				// earlier statement of the callee (not by another
				// implementation of the method that takes it).
				fa.vetoRows(UnorderedRows, site.Pos(), out.Lock.Class)
				return
			}
			lent := fa.borrowedTx(out)
			out.Rows.Pending = lent
			fa.reportRows(RowFinding{Rule: UnorderedRows, Pos: site.Pos(), Lock: out.Lock, Rows: out.Rows, Path: out.Path, Lent: lent, event: i, first: -1})
		}
		return
	}
	if out.Hold == HoldNone || !out.Lock.Waits || ev.Rows.Unordered() || ev.Tx.local() {
		// A transaction the callee opens itself is one per call: it
		// holds nothing from one iteration of the caller's loop to
		// the next.
		return
	}
	n, _, ok := Ref(ev.Rows.Key).param()
	if !ok || n >= len(vals) {
		return
	}
	if l := fa.yieldLoop; vals[n] == nil && l != nil && n < l.params {
		// Keyed by an element of the range-over-func loop whose body
		// this is (rangefunc.go).
		if l.over != "" && !fa.lockedInOrderBefore(out, sortedKeys(st.held)) && !fa.lockedInOrderBefore(out, before) {
			fa.reportRows(RowFinding{Rule: LoopOrder, Pos: l.at(fa.a.env.Fset, out.Path), Lock: out.Lock, Rows: out.Rows, Path: out.Path, Loop: l.over, event: i, first: -1})
		}
		return
	}
	if vals[n] == nil {
		return
	}
	if over, ok := fa.inUnorderedLoop(site, out, vals[n:n+1]); ok && !fa.lockedInOrderBefore(out, sortedKeys(st.held)) && !fa.lockedInOrderBefore(out, before) {
		fa.reportRows(RowFinding{Rule: LoopOrder, Pos: site.Pos(), Lock: out.Lock, Rows: out.Rows, Path: out.Path, Loop: over, event: i, first: -1})
	}
}

// checkPair applies the caller-order rule to held event h and request w:
// two rows of one table, locked in one transaction, with keys that are two
// different values the caller passes, in the order it passes them.
func (fa *fnAnalysis) checkPair(h, w int, held []int) {
	H, W := fa.events[h], fa.events[w]
	if H == W || H.Hold == HoldNone || !W.Lock.Waits || H.Rows.Unordered() || W.Rows.Unordered() {
		return
	}
	rows := H.Lock.Class == W.Lock.Class && W.Lock.Class.IsRow()
	// Two advisory locks of one key shape (pg_advisory_xact_lock($1) for
	// each account), keyed by two caller-chosen values.
	keys := !keyShape(H.Lock.Class).IsZero() && keyShape(H.Lock.Class) == keyShape(W.Lock.Class)
	if !rows && !keys {
		return
	}
	if !sameConn(H.Conn, W.Conn) && H.Tx != W.Tx {
		return
	}
	kh, kw := H.Rows.Key, W.Rows.Key
	var read [2]bool
	switch table := W.Lock.Class.Table(); {
	case kh != kw && callerChosen(kh) && callerChosen(kw):
	case rows && callerChosen(kh) && readElsewhere(W.Rows, table):
		// The caller's row, then one the function found in the data
		// (readkeys.go).
		kw, read[1] = W.Rows.Read, true
	case rows && callerChosen(kw) && readElsewhere(H.Rows, table):
		// A row found in the data (the appointment's slot), then the
		// caller's.
		kh, read[0] = H.Rows.Read, true
	default:
		return
	}
	// Two concurrent calls with the keys swapped: each holds its first
	// row in H's mode and waits for the other's in W's.
	if !lockmodel.ModesConflict(H.Lock.Mode, W.Lock.Mode) || fa.ordersKeys(kh, kw) {
		return
	}
	for _, o := range held {
		// W's row may be locked already, in a mode that covers it: by a
		// statement over several rows (WHERE id IN ($1, $2) ORDER BY id
		// FOR UPDATE), by one whose key the code computed (min(a, b)),
		// or by one with W's own key. W then waits for nothing.
		O := fa.events[o]
		if o == h || O.Lock.Class != W.Lock.Class || !sameConn(O.Conn, W.Conn) && O.Tx != W.Tx ||
			!lockgraph.Covers(O.Lock.Mode, W.Lock.Mode) {
			continue
		}
		if O.Rows.Multi || O.Rows.Key == "" && O.Rows.Read == "" || O.Rows.Key == kw || O.Rows.Read == kw {
			fa.vetoRows(CallerOrder, fa.eventPos[w], W.Lock.Class)
			return
		}
	}
	fa.reportRows(RowFinding{
		Rule: CallerOrder, Pos: fa.eventPos[w], Lock: W.Lock, Rows: W.Rows,
		Path: W.Path, First: H.Path, Keys: [2]string{fa.keyName(kh), fa.keyName(kw)}, Read: read, event: w, first: h,
		// Whether the caller holds both rows already is for each
		// caller to say (apply, judgeLentPairs).
		Lent: fa.fn.Parent() == nil && fa.lentHandle(H) && fa.lentHandle(W),
	})
}

// lentHandle reports whether event e runs on a handle the function's caller
// lends it: a transaction (borrowedTx), or a handle that is one only if the
// caller's is (a DBTX, HoldCond).
func (fa *fnAnalysis) lentHandle(e *Event) bool {
	return fa.borrowedTx(e) || e.Hold == HoldCond
}

// judgeLentPairs judges, at a call of a function whose summary is sum (its
// events mapped to this function's as mapped), the function's lent caller-row-order
// findings: harmless here when this function already holds both rows (see
// callerHoldsRow), or when the call runs them outside any transaction;
// standing otherwise. Over every visit of the call, a standing verdict
// wins.
func (fa *fnAnalysis) judgeLentPairs(sum *Summary, mapped []int, st *state) {
	for _, lp := range sum.LentPairs {
		if lp.First >= len(mapped) || lp.Then >= len(mapped) {
			continue
		}
		first, then := fa.events[mapped[lp.First]], fa.events[mapped[lp.Then]]
		harmless := first.Hold == HoldNone && then.Hold == HoldNone ||
			fa.callerHoldsRow(mapped[lp.First], st, true) && fa.callerHoldsRow(mapped[lp.Then], st, true)
		fa.a.judgeLent(lp.Key, harmless)
	}
}

// keyName spells a key origin with the function's own names: "from",
// "req.ToID".
func (fa *fnAnalysis) keyName(key string) string {
	if name, ok := strings.CutPrefix(key, "in:"); ok {
		return name
	}
	if name, ok := strings.CutPrefix(key, readPrefix); ok {
		return name
	}
	n, rest, ok := Ref(key).param()
	if !ok {
		return key
	}
	name := "p" + strconv.Itoa(n)
	switch {
	case n < len(fa.fn.Params):
		name = fa.fn.Params[n].Name()
	case n-len(fa.fn.Params) < len(fa.fn.FreeVars):
		name = fa.fn.FreeVars[n-len(fa.fn.Params)].Name()
	}
	if rest != "" {
		name += "." + rest
	}
	return name
}

// ordersKeys reports whether the function compares the two key values (a <
// b, cmp.Compare(a, b)): code that does so picks the order itself.
func (fa *fnAnalysis) ordersKeys(k1, k2 string) bool {
	match := func(x, y ssa.Value) bool {
		ox, oy := fa.anyKey(x), fa.anyKey(y)
		return ox == k1 && oy == k2 || ox == k2 && oy == k1
	}
	for _, b := range fa.fn.Blocks {
		for _, instr := range b.Instrs {
			switch x := instr.(type) {
			case *ssa.BinOp:
				switch x.Op {
				case token.LSS, token.GTR, token.LEQ, token.GEQ:
					if match(x.X, x.Y) {
						return true
					}
				}
			case *ssa.Call:
				if args := x.Call.Args; len(args) == 2 && match(args[0], args[1]) {
					if f := x.Call.StaticCallee(); f != nil && (f.Name() == "Compare" || strings.HasPrefix(f.Name(), "Less")) {
						return true
					}
				}
			}
		}
	}
	return false
}

// keyShape is the key of a parametric advisory class with its parameters
// blanked ("(hashtext(?))"), or the zero Class for any other class: two
// locks of one shape differ only in the values the callers pass.
func keyShape(class lockgraph.Class) lockgraph.Class {
	if !class.Parametric() {
		return lockgraph.Class{}
	}
	return lockgraph.AdvisoryOf(paramRE.ReplaceAllString(class.Name, "?"), "")
}

// dollarRE matches a $n placeholder in a key template.
var dollarRE = regexp.MustCompile(`\$([0-9]+)`)

// constantKey reports whether a lock takes the same row or advisory key
// every time its statement runs (WHERE id = 1, pg_advisory_xact_lock(42)):
// a loop cannot change its order.
func constantKey(eff lockmodel.Effect) bool {
	if eff.Lock.Kind == lockmodel.Advisory {
		for _, p := range eff.Lock.Key.Parts {
			if !p.Known() {
				return false
			}
		}
		return len(eff.Lock.Key.Parts) > 0
	}
	return eff.Rows.KeyColumn != "" && eff.Rows.KeyParam == 0
}

// paramRE matches the placeholder of a caller-supplied key part.
var paramRE = regexp.MustCompile(`\?p[0-9]+`)

// checkQueuedInLoop applies the loop rule to a statement queued in a batch
// inside a loop: the batch runs as one implicit transaction, so the rows
// queued by every iteration are held together, in the loop's order.
func (fa *fnAnalysis) checkQueuedInLoop(queue ssa.Instruction, h Handle, text string, keys []ssa.Value) {
	if fa.a.skipSQL(fa.position(queue.Pos()), text) {
		return
	}
	an := fa.a.schema().Analyze(text)
	for _, eff := range an.Effects {
		if eff.Kind != lockmodel.Acquire || !eff.Lock.Waits() || eff.Rows.Unordered() || constantKey(eff) ||
			(eff.Lock.Kind != lockmodel.Row && eff.Lock.Kind != lockmodel.Advisory) {
			continue
		}
		vals := keys
		if p := eff.Rows.KeyParam; p > 0 && p <= len(keys) {
			vals = keys[p-1 : p]
		}
		over, ok := fa.inUnorderedLoop(queue, &Event{Tx: h.Ref}, vals)
		if !ok {
			continue
		}
		lock := lockgraph.Lock{Mode: eff.Lock.Mode, Waits: true, Class: lockgraph.RowsOf(eff.Lock.Table)}
		if eff.Lock.Kind == lockmodel.Advisory {
			lock.Class = fa.advisoryClass(eff.Lock, keys, queue)
		}
		fa.reportRows(RowFinding{
			Rule: LoopOrder, Pos: queue.Pos(), Lock: lock, Loop: over,
			Path:  []lockgraph.Frame{fa.frame(queue.Pos(), eff.Verb+" queued in a batch (one implicit transaction)")},
			event: -1, first: -1,
		})
	}
}

// passedThrough returns the argument of call c that the callee returns
// unchanged as its result i on every path (a helper that only picks or
// passes its arguments on), or nil.
func passedThrough(c *ssa.Call, i int) ssa.Value {
	f := c.Call.StaticCallee()
	if f == nil || len(f.Blocks) == 0 {
		return nil
	}
	param := -1
	for _, b := range f.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if i >= len(ret.Results) {
			return nil
		}
		p, ok := stripConversions(ret.Results[i]).(*ssa.Parameter)
		j := slices.Index(f.Params, p)
		if !ok || j < 0 || param >= 0 && j != param {
			return nil
		}
		param = j
	}
	if param < 0 || param >= len(c.Call.Args) {
		return nil
	}
	return c.Call.Args[param]
}

// notAlternatives returns the events of held that are no alternative of e:
// the same statement of another implementation of the method a call reached
// through an interface (or of another function a function value may be).
// A callee's summary lists each implementation's statements one after
// another, but one call runs only one of them: the statement of the one
// that ran did not lock the rows before the other's.
func notAlternatives(events []*Event, e *Event, held []int) []int {
	out := make([]int, 0, len(held))
	for _, h := range held {
		if !alternatives(events[h], e) {
			out = append(out, h)
		}
	}
	return out
}

// alternatives reports whether a and b were reached through one call
// instruction that leads to two different functions: their paths agree up
// to a frame at the same position in the same function that calls
// something else in each.
func alternatives(a, b *Event) bool {
	for i := 0; i < len(a.Path) && i < len(b.Path); i++ {
		fa, fb := a.Path[i], b.Path[i]
		if fa == fb {
			continue
		}
		return fa.Func == fb.Func && fa.Pos == fb.Pos && i+1 < len(a.Path) && i+1 < len(b.Path) &&
			a.Path[i+1].Func != b.Path[i+1].Func
	}
	return false
}
