package lockseq

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// state is what is true at one program point: the events whose locks may
// be held, those surely held (on every path to the point), the
// connections with a transaction begun in SQL text, and the session locks
// of the caller's connections surely unlocked on the way (unlocked).
type state struct {
	held  map[int]bool
	must  map[int]bool
	sqlTx map[Ref]bool
	// unlocked are the unlocks made on connections that outlive the
	// function (a parameter's, a captured one's) on every path to the
	// point: a release of such a connection after them gives back a
	// connection the caller's lock is already off (Release.Unlocked).
	unlocked map[Unlock]bool
}

func newState() *state {
	return &state{held: map[int]bool{}, must: map[int]bool{}, sqlTx: map[Ref]bool{}, unlocked: map[Unlock]bool{}}
}

func (s *state) clone() *state {
	return &state{held: maps.Clone(s.held), must: maps.Clone(s.must), sqlTx: maps.Clone(s.sqlTx), unlocked: maps.Clone(s.unlocked)}
}

// hold marks event ev as held; surely is set when it is held on this path
// whatever came before (the function's own acquisition).
func (s *state) hold(ev int, surely bool) {
	s.held[ev] = true
	if surely {
		s.must[ev] = true
	}
}

// drop releases event ev.
func (s *state) drop(ev int) {
	delete(s.held, ev)
	delete(s.must, ev)
}

// join merges o into s, the state where two paths meet: what either may
// hold, what both surely hold. It reports whether s changed.
func (s *state) join(o *state) bool {
	changed := false
	for k := range o.held {
		if !s.held[k] {
			s.held[k], changed = true, true
		}
	}
	for k := range s.must {
		if !o.must[k] {
			delete(s.must, k)
			changed = true
		}
	}
	for k := range o.sqlTx {
		if !s.sqlTx[k] {
			s.sqlTx[k], changed = true, true
		}
	}
	for k := range s.unlocked {
		if !o.unlocked[k] {
			delete(s.unlocked, k)
			changed = true
		}
	}
	return changed
}

// eventKey identifies an event of a function: the instruction, the
// alternative query text, and the index within it (or in the callee).
type eventKey struct {
	instr ssa.Instruction
	alt   int
	idx   int
	// scope tells apart the callees applied at one call site (see
	// mapHandle).
	scope string
}

// fnAnalysis is the analysis of one function. Its own fields are the
// dataflow core: the events (lock requests, its own and its callees'), the
// handles they are made on, what is surely held where, and the pairs and
// edges drawn. The state of each other concern is a type of its own, in
// that concern's file: the session-level locks and try-locks
// (sessionLocks, session.go), the binding of statements' keys to Go values
// and the keyed gates (keyBinding, keyed.go), and what the row-order rules
// collect (rowRules, rows.go).
type fnAnalysis struct {
	// lent counts the pairs the function lends its callers (see
	// maxLentPairs).
	lent int
	a    *Analysis
	fn   *ssa.Function
	name string
	sessionLocks
	keyBinding
	rowRules

	events   []*Event
	eventPos []token.Pos
	eventIdx map[eventKey]int
	locals   map[ssa.Value]Ref
	sites    map[ssa.Instruction]int
	// siteInstrs are the call sites by their number in sites.
	siteInstrs []ssa.Instruction
	edges      map[[2]int]*lockgraph.Edge
	// via names the callee whose SQL sink is being applied, for paths,
	// and unit tells apart the sinks applied at one call site.
	via, unit string
	mustAt    map[int]map[int]bool
	pairs     map[[2]int]Pair
	sum       *Summary
	sinks     map[string]int
	invokes   map[string]int
	// limited are the bounds reached (limits.go), each said once.
	limited map[string]bool
	// dispatched are the calls through interfaces met, counted once
	// (dispatch.go).
	dispatched map[token.Pos]bool
	// callback caches callbackOnly: 0 unknown, 1 no, 2 yes.
	callback int8
	// closure names the closure a factory call returned when this is the
	// analysis of it as a root of its own (factory.go).
	closure string
	// applying are the function values whose summaries applyInvoke is
	// applying, outermost first: a closure that a callee's callback runs
	// again (a recursive closure, hooks that wrap each other) is applied
	// once on that chain, not without end.
	applying []*ssa.Function
	// yieldLoop is the range-over-func loop whose body is being applied
	// (rangefunc.go), or nil.
	yieldLoop *rangeFuncLoop
}

func newFnAnalysis(a *Analysis, fn *ssa.Function) *fnAnalysis {
	return &fnAnalysis{
		a: a, fn: fn, name: FuncName(fn),
		sessionLocks: newSessionLocks(),
		eventIdx:     map[eventKey]int{},
		locals:       map[ssa.Value]Ref{},
		sites:        map[ssa.Instruction]int{},
		edges:        map[[2]int]*lockgraph.Edge{},
		mustAt:       map[int]map[int]bool{},
		pairs:        map[[2]int]Pair{},
		sum:          &Summary{},
		sinks:        map[string]int{},
		invokes:      map[string]int{},
	}
}

// run computes the function's summary, emitting edges on the way. It
// iterates over the blocks in dominator order until the states at block
// entries stop growing; the domain (sets of events of this function) is
// finite, so this ends.
func (fa *fnAnalysis) run() *Summary {
	if len(fa.fn.Blocks) == 0 {
		return nil
	}
	in := make([]*state, len(fa.fn.Blocks))
	in[0] = newState()
	// exit joins the states at every return; okExit those at the returns
	// that report success (a nil error), which the callers go on from.
	var exit, okExit *state
	order := fa.fn.DomPreorder()
	for changed := true; changed; {
		changed = false
		for _, b := range order {
			if in[b.Index] == nil {
				continue
			}
			st := in[b.Index].clone()
			for _, instr := range b.Instrs {
				fa.step(instr, st)
			}
			if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
				if exit == nil {
					exit = st.clone()
				} else {
					exit.join(st)
				}
				if fa.succeeds(ret) {
					if okExit == nil {
						okExit = st.clone()
					} else {
						okExit.join(st)
					}
				}
			}
			failing, failed := fa.failedCall(b)
			tried := fa.tryBranch(b, failing, failed)
			for i, succ := range b.Succs {
				out := st
				if failed != nil && i == failing {
					out = fa.withoutCall(st, failed)
				}
				if i < len(tried) {
					out = fa.edited(out, tried[i])
				}
				if in[succ.Index] == nil {
					in[succ.Index] = out.clone()
					changed = true
				} else if in[succ.Index].join(out) {
					changed = true
				}
			}
		}
	}
	if exit == nil {
		exit = newState() // the function never returns
	}
	if okExit == nil {
		okExit = exit
	}
	fa.finish(exit, okExit)
	return fa.sum
}

// succeeds reports whether a return may report success: the function has
// no error result last, or returns nil for it, or the error of a call made
// on the way (return err after the last statement: nil when that call
// succeeded) other than on the branch where that very call failed (if err
// != nil { return err }). A caller checks the error and goes on only after
// such returns (its error branch drops what the call took, see
// failedCall), so what is surely held there is what the caller may count
// on, such as a gate that a helper takes before it returns the transaction.
// A return of a nil handle (tx := beginWrite(ctx), which returns nil when it
// could not begin or lock) fails too: the caller can run nothing on it, so it
// must test it and go on only with a real one.
func (fa *fnAnalysis) succeeds(ret *ssa.Return) bool {
	res := ret.Parent().Signature.Results()
	if len(ret.Results) != res.Len() {
		return true
	}
	for i, v := range ret.Results {
		v = spilledResult(ret, v)
		c, isConst := v.(*ssa.Const)
		t := res.At(i).Type()
		switch {
		case isError(t):
			v = wrappedError(v)
			if i == res.Len()-1 && (!isConst || !c.IsNil()) && (neverNil(v) || !fa.passedOn(ret, v)) {
				return false
			}
		case isConst && c.IsNil() && !isContextType(t) && len(fa.a.handlePaths(t)) > 0:
			return false
		}
	}
	return true
}

// errorWrappers are functions whose error result is nil exactly when their
// first argument is (errors.Wrap(err, "lock")): what they return is that
// error, for the caller's test.
var errorWrappers = map[string]bool{
	"github.com/pkg/errors.Wrap":              true,
	"github.com/pkg/errors.Wrapf":             true,
	"github.com/pkg/errors.WithStack":         true,
	"github.com/pkg/errors.WithMessage":       true,
	"github.com/pkg/errors.WithMessagef":      true,
	"github.com/cockroachdb/errors.Wrap":      true,
	"github.com/cockroachdb/errors.Wrapf":     true,
	"github.com/cockroachdb/errors.WithStack": true,
}

// errorConstructors are functions whose error result is never nil.
var errorConstructors = map[string]bool{
	"fmt.Errorf":                           true,
	"errors.New":                           true,
	"github.com/pkg/errors.New":            true,
	"github.com/pkg/errors.Errorf":         true,
	"github.com/cockroachdb/errors.New":    true,
	"github.com/cockroachdb/errors.Newf":   true,
	"github.com/cockroachdb/errors.Errorf": true,
}

// wrappedError returns the error an error wrapper call v wraps (see
// errorWrappers), through any number of them, and v otherwise.
func wrappedError(v ssa.Value) ssa.Value {
	for range 8 {
		call, ok := v.(*ssa.Call)
		if !ok || len(call.Call.Args) == 0 {
			return v
		}
		fn := call.Call.StaticCallee()
		if fn == nil || fn.Pkg == nil || !errorWrappers[fn.Pkg.Pkg.Path()+"."+fn.Name()] {
			return v
		}
		v = call.Call.Args[0]
		if mi, ok := v.(*ssa.MakeInterface); ok {
			v = mi.X
		}
	}
	return v
}

// neverNil reports whether the error value v cannot be nil: a value boxed
// in the interface (&LockError{...}, a sentinel's copy), or the result of
// a constructor such as fmt.Errorf("lock customer %d: %w", id, err). A
// helper that returns one on the branch where its lock failed reports
// that failure, whatever error it wraps.
func neverNil(v ssa.Value) bool {
	return neverNilAt(v, map[ssa.Value]bool{})
}

func neverNilAt(v ssa.Value, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return true // a loop of phis: nil only if some edge brings one
	}
	seen[v] = true
	switch x := v.(type) {
	case *ssa.MakeInterface:
		return true
	case *ssa.Call:
		fn := x.Call.StaticCallee()
		return fn != nil && fn.Pkg != nil && errorConstructors[fn.Pkg.Pkg.Path()+"."+fn.Name()]
	case *ssa.Phi:
		for _, e := range x.Edges {
			if !neverNilAt(e, seen) {
				return false
			}
		}
		return len(x.Edges) > 0
	}
	return false
}

// spilledResult returns the value a return statement really returns as v:
// in a function with a defer, SSA stores the results into locals before
// running the deferred calls and returns loads of them (return items, nil
// returns *t2, where t2 was just set to nil).
func spilledResult(ret *ssa.Return, v ssa.Value) ssa.Value {
	res := ret.Parent().Signature.Results()
	named := res.Len() > 0 && res.At(0).Name() != ""
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return v
	}
	slot, ok := load.X.(*ssa.Alloc)
	if !ok {
		return v
	}
	instrs := ret.Block().Instrs
	for i := slices.Index(instrs, ssa.Instruction(load)) - 1; i >= 0; i-- {
		switch x := instrs[i].(type) {
		case *ssa.Store:
			if x.Addr == slot {
				return x.Val
			}
		case *ssa.RunDefers:
			if named {
				// A deferred closure may set a named result.
				return v
			}
		case *ssa.Call:
			if named {
				return v
			}
		}
	}
	return v
}

// passedOn reports whether the error v that ret returns is a call's error
// result, returned other than on the branch where that call's error was
// found not nil: it is nil where the call succeeded.
func (fa *fnAnalysis) passedOn(ret *ssa.Return, v ssa.Value) bool {
	call := errorOf(v)
	if call == nil {
		return false
	}
	for b := ret.Block(); b != nil; {
		if len(b.Preds) != 1 {
			return true
		}
		pred := b.Preds[0]
		if failing, failed := fa.failedCall(pred); failed == call && pred.Succs[failing] == b {
			return false
		}
		if len(pred.Succs) != 1 {
			return true
		}
		b = pred
	}
	return true
}

// isError reports whether t is the error interface.
func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// step applies one instruction to the state.
func (fa *fnAnalysis) step(instr ssa.Instruction, st *state) {
	switch instr := instr.(type) {
	case *ssa.Call:
		fa.call(instr, instr.Common(), st)
	case *ssa.RunDefers:
		defers := fa.defers()
		for i := len(defers) - 1; i >= 0; i-- {
			fa.call(defers[i], defers[i].Common(), st)
		}
	}
}

// defers lists the function's defer statements in order.
func (fa *fnAnalysis) defers() []*ssa.Defer {
	var out []*ssa.Defer
	for _, b := range fa.fn.Blocks {
		for _, instr := range b.Instrs {
			if d, ok := instr.(*ssa.Defer); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// call applies a call: a database operation, or a function whose summary
// is known.
func (fa *fnAnalysis) call(site ssa.Instruction, c *ssa.CallCommon, st *state) {
	op := fa.a.env.Rules.Classify(c)
	switch op.Kind {
	case sqlsite.Query:
		fa.via = op.Via // the library call that ran a statement it built, if any
		fa.builtKeys = op.Keys
		fa.query(site, fa.queryHandle(op), op.Args[op.Query], argOrNil(op.Args, op.Params), st, false)
		fa.via, fa.builtKeys = "", nil
	case sqlsite.Commit, sqlsite.Rollback:
		if !fa.a.isSavepoint(op.Recv) {
			fa.endTx(fa.handleOf(op.Recv), st)
		}
	case sqlsite.Release:
		fa.releaseConn(site, fa.handleOf(op.Recv), op.Pooled, st, nil, false)
	case sqlsite.SendBatch:
		fa.sendBatch(site, fa.handleOf(op.Recv), op.Args[op.Batch], st)
	case sqlsite.StmtRun:
		if h, q, ok := fa.preparedStmt(op.Recv); ok {
			fa.query(site, h, q, argOrNil(op.Args, op.Params), st, false)
		}
	case sqlsite.BeginFunc:
		fa.beginFunc(site, op, st)
	case sqlsite.NoOp:
		fa.userCall(site, c, st)
	}
}

func argOrNil(args []ssa.Value, i int) ssa.Value {
	if i >= 0 && i < len(args) {
		return args[i]
	}
	return nil
}

// userCall applies the summary of a called function or closure.
func (fa *fnAnalysis) userCall(site ssa.Instruction, c *ssa.CallCommon, st *state) {
	if c.IsInvoke() {
		if isServeHTTP(c) {
			// next.ServeHTTP(w, r) on the handler a middleware was
			// given: its callers pass an http.HandlerFunc (see
			// funcSource), run as any function value.
			switch v := funcSource(c.Value).(type) {
			case *ssa.Parameter, *ssa.FreeVar:
				fa.invoke(v, c.Args, st)
				return
			}
		}
		fa.dispatch(site, c, st) // an interface method: its implementations
		return
	}
	switch v := funcSource(c.Value).(type) {
	case *ssa.Parameter, *ssa.FreeVar:
		fa.invoke(v, c.Args, st)
		return
	}
	if fa.rangeFuncCall(site, c, st) { // the body of a range-over-func loop (rangefunc.go)
		return
	}
	callee, bindings := funcValue(c.Value)
	if callee == nil {
		if !fa.fieldCall(site, c, st) { // a function kept in a struct field (fieldfuncs.go)
			fa.callReturned(site, c, st) // a closure a factory returned (factory.go)
		}
		return
	}
	sum := fa.a.summaryOf(callee)
	if sum == nil && len(callee.Blocks) == 0 {
		fa.opaqueRunner(site, callee, c, st)
		return
	}
	if sum.Empty() {
		return
	}
	bind := func(i int, path []string) (Handle, bool) {
		return fa.bindArg(c.Args, bindings, numParams(callee), i, path)
	}
	fa.enter(callee, site, st)
	fa.apply(site, "", sum, calleeValues(c.Args, bindings, numParams(callee)), bind, st)
	fa.escapingClosures(site, sum)
}

// opaqueRunner applies, at a call of a function of another package that
// was not analysed (a retry or backoff helper that imports no database
// API, a library's), the closures without parameters the call passes it,
// as if the function ran each once before it returns: retry.Do(ctx, func()
// error { return pgx.BeginTxFunc(...) }) runs its operation in the
// caller's place, and a transaction the caller's callback is given inside
// it reaches that callback. The standard library's functions are left
// alone: those that take a func() run it later (time.AfterFunc) or
// elsewhere, or take no locks.
func (fa *fnAnalysis) opaqueRunner(site ssa.Instruction, callee *ssa.Function, c *ssa.CallCommon, st *state) {
	if callee.Pkg == nil && callee.Object() == nil || isStandard(callee) {
		return
	}
	for _, arg := range c.Args {
		cb, bindings := funcValue(arg)
		if cb == nil || cb.Signature.Params().Len() != 0 || len(cb.Blocks) == 0 {
			continue
		}
		sum := fa.a.summaryOf(cb)
		if sum.Empty() {
			continue
		}
		bind := func(i int, path []string) (Handle, bool) {
			return fa.bindArg(nil, bindings, 0, i, path)
		}
		fa.enter(cb, site, st)
		fa.apply(site, "", sum, calleeValues(nil, bindings, 0), bind, st)
	}
}

// isStandard reports whether fn belongs to the standard library: its
// package path starts with one of the standard library's top-level
// directories. (A module path need not have a dot: "corpus" or "myservice"
// are valid.)
func isStandard(fn *ssa.Function) bool {
	obj := fn.Object()
	if obj == nil || obj.Pkg() == nil {
		return false
	}
	first, _, _ := strings.Cut(obj.Pkg().Path(), "/")
	return stdTop[first]
}

// stdTop are the top-level directories of the standard library.
var stdTop = map[string]bool{
	"archive": true, "bufio": true, "bytes": true, "cmp": true, "compress": true, "container": true, "context": true,
	"crypto": true, "database": true, "debug": true, "embed": true, "encoding": true, "errors": true, "expvar": true,
	"flag": true, "fmt": true, "go": true, "hash": true, "html": true, "image": true, "index": true, "io": true,
	"iter": true, "log": true, "maps": true, "math": true, "mime": true, "net": true, "os": true, "path": true,
	"plugin": true, "reflect": true, "regexp": true, "runtime": true, "slices": true, "sort": true, "strconv": true,
	"strings": true, "structs": true, "sync": true, "syscall": true, "testing": true, "text": true, "time": true,
	"unicode": true, "unique": true, "unsafe": true, "weak": true,
}

// calleeValues lists the values of a callee's parameters at a call site,
// numbered the way summaries number them: the parameters, then a closure's
// free variables. Parameters the call does not supply are nil.
func calleeValues(args, bindings []ssa.Value, nparams int) []ssa.Value {
	out := make([]ssa.Value, nparams, nparams+len(bindings))
	copy(out, args)
	return append(out, bindings...)
}

// invoke records that the function calls its function-valued parameter fn
// with args: its callers apply the summary of the function they pass, with
// the handles the arguments carry (execTx(ctx, func(q *Queries) error),
// which runs the callback on queries bound to a transaction it begins).
func (fa *fnAnalysis) invoke(fn ssa.Value, args []ssa.Value, st *state) {
	var flows []Flow
	for j, arg := range args {
		flows = append(flows, fa.handleFlows(j, arg, arg.Type())...)
	}
	fa.recordInvoke(fn, flows, st)
}

// recordInvoke records that the function invokes its function-valued
// parameter (or free variable) fn, passing the handles flows lists, while
// st's locks are held. An invocation that passes no handle is recorded too:
// a retry helper's fn() runs a closure that captures the runner's callback
// and the transaction it begins, and without the record the chain from the
// callback's caller to the runner's transaction breaks there.
func (fa *fnAnalysis) recordInvoke(fn ssa.Value, flows []Flow, st *state) {
	param := -1
	switch v := fn.(type) {
	case *ssa.Parameter:
		param = slices.Index(fa.fn.Params, v)
	case *ssa.FreeVar:
		param = len(fa.fn.Params) + slices.Index(fa.fn.FreeVars, v)
	}
	if param < 0 {
		return
	}
	inv := Invoke{Param: param, Args: flows}
	held, surely := sortedKeys(st.held), sortedKeys(st.must)
	key := fmt.Sprint(inv.Param, inv.Args)
	if i, ok := fa.invokes[key]; ok {
		// The same invocation seen again (another path, or another
		// round of the fixpoint): it may hold what either held, and
		// surely holds what both surely held.
		v := &fa.sum.Invokes[i]
		v.Held, v.Surely = mergeHeld(v.Held, v.Surely, held, surely)
		return
	}
	inv.Held, inv.Surely = held, surely
	fa.invokes[key] = len(fa.sum.Invokes)
	fa.sum.Invokes = append(fa.sum.Invokes, inv)
}

// bindArg resolves the handle at field path of a callee's parameter i, given
// the call's arguments and the closure's bindings (numbered after the
// nparams parameters).
func (fa *fnAnalysis) bindArg(args, bindings []ssa.Value, nparams, i int, path []string) (Handle, bool) {
	var v ssa.Value
	switch {
	case i < len(args):
		v = args[i]
	case i >= nparams && i-nparams < len(bindings):
		v = bindings[i-nparams]
	}
	if v == nil {
		return Handle{}, false
	}
	return fa.normalise(fa.resolve(v, path, 0)), true
}

// queryHandle is the handle a query runs on: its receiver's, or, for a
// user-declared sink that is no transaction, connection or pool itself
// (an interface the project declared, an implementation of one), the
// transaction its context carries (sqlsite.Op.CtxTx).
func (fa *fnAnalysis) queryHandle(op sqlsite.Op) Handle {
	h := fa.handleOf(op.Recv)
	switch h.Kind {
	case sqlsite.Tx, sqlsite.Conn, sqlsite.Pool:
		return h
	}
	if op.CtxTx {
		for _, a := range op.Args {
			if isContextType(a.Type()) {
				return fa.normalise(fa.resolve(a, []string{ctxTx}, 0))
			}
		}
	}
	if h.Kind == sqlsite.NotHandle {
		h.Kind = op.RecvKind
	}
	return h
}

// beginFunc models pgx.BeginFunc and friends: begin a transaction on the
// receiver, run the callback with it, commit.
func (fa *fnAnalysis) beginFunc(site ssa.Instruction, op sqlsite.Op, st *state) {
	recv := fa.handleOf(op.Recv)
	call, _ := site.(ssa.CallInstruction)
	if call == nil {
		return
	}
	tx := Handle{Ref: fa.localRef(call.Value()), Kind: sqlsite.Tx}
	switch recv.Kind {
	case sqlsite.Tx:
		tx = recv // a savepoint inside the caller's transaction
	case sqlsite.Conn, sqlsite.Maybe:
		tx.Conn = recv.Conn
	default:
		tx.Conn = tx.Ref
	}
	switch fn := funcSource(op.Args[op.Func]).(type) {
	case *ssa.Parameter, *ssa.FreeVar:
		// The callback is this function's own parameter (a retry
		// wrapper around db.Transaction): its callers run it on the
		// transaction begun here.
		fa.recordInvoke(fn, []Flow{{Result: op.FuncTx, Handle: tx}}, st)
		if tx.Ref != recv.Ref {
			fa.endTx(tx, st)
		}
		return
	}
	callee, bindings := funcValue(op.Args[op.Func])
	if callee == nil {
		return
	}
	sum := fa.a.summaryOf(callee)
	if !sum.Empty() {
		// The callback's first parameter is the transaction.
		bind := func(i int, path []string) (Handle, bool) {
			if i == op.FuncTx && (len(path) == 0 || ctxPath(path)) {
				return tx, true
			}
			return fa.bindArg(nil, bindings, numParams(callee), i, path)
		}
		fa.enter(callee, site, st)
		fa.apply(site, "", sum, calleeValues(nil, bindings, numParams(callee)), bind, st)
	}
	if tx.Ref != recv.Ref {
		fa.endTx(tx, st)
	}
}

// finish fills in the summary's exit state, flows and limits: what may be
// held at any return, and of that what is surely held at every return that
// reports success (okExit).
func (fa *fnAnalysis) finish(exit, okExit *state) {
	fa.flushRows()
	fa.flows()
	fa.returnedText()
	fa.returnedClosures()
	// A transaction the function begins and returns (tx := beginWrite())
	// goes on in the caller with what it holds.
	returned := map[Ref]bool{}
	for _, f := range fa.sum.Returns {
		returned[f.Handle.Ref], returned[f.Handle.Conn] = true, true
	}
	delete(returned, "")
	for _, i := range sortedKeys(exit.held) {
		e := fa.events[i]
		if escapes(e.Tx) || escapes(e.Conn) || returned[e.Tx] || returned[e.Conn] {
			fa.sum.Exit = append(fa.sum.Exit, i)
			if okExit.must[i] {
				fa.sum.Surely = append(fa.sum.Surely, i)
			}
		}
	}
	for _, p := range fa.pairs {
		fa.sum.Pairs = append(fa.sum.Pairs, p)
	}
	slices.SortFunc(fa.sum.Pairs, func(a, b Pair) int {
		if a.Held != b.Held {
			return a.Held - b.Held
		}
		return a.Wanted - b.Wanted
	})
	for i, e := range fa.events {
		e.Guards = fa.guardEvents(i)
		e.Scoped = fa.scopes(i)
		fa.sum.Events = append(fa.sum.Events, *e)
	}
	fa.sum.Tries = fa.tryResults()
	for _, r := range fa.releases {
		slices.SortFunc(r.Unlocked, compareUnlocks)
		fa.sum.Releases = append(fa.sum.Releases, *r)
	}
	slices.SortFunc(fa.sum.Releases, func(a, b Release) int {
		return cmp.Or(strings.Compare(string(a.Ref), string(b.Ref)), cmpBool(a.Conn, b.Conn), cmpBool(a.Pooled, b.Pooled))
	})
	for u := range fa.unlocks {
		fa.sum.Unlocks = append(fa.sum.Unlocks, u)
	}
	slices.SortFunc(fa.sum.Unlocks, compareUnlocks)
	fa.compact()
}

// compareUnlocks orders unlocks by connection, then class.
func compareUnlocks(a, b Unlock) int {
	return cmp.Or(strings.Compare(string(a.Conn), string(b.Conn)), lockgraph.CompareClasses(a.Class, b.Class))
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// escapes reports whether a handle outlives the function: a parameter's or a
// global's.
func escapes(r Ref) bool {
	_, _, isParam := r.param()
	return isParam || strings.HasPrefix(string(r), "g:")
}

// flows records the handles the function returns. Where its returns yield
// different handles at one result and path, the handle is chosen as at a
// φ-node (choosePhi: the caller's transaction, or the pool when it has
// none, is the caller's handle, a transaction only if it is one); where
// that chooses none, the first return wins.
func (fa *fnAnalysis) flows() {
	results := fa.fn.Signature.Results()
	type at struct {
		result int
		path   string
	}
	alts := map[at][]Handle{}
	for _, b := range fa.fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for r, v := range ret.Results {
			for _, f := range fa.handleFlows(r, v, results.At(r).Type()) {
				if ctxPassThrough(strings.Split(f.Path, "."), f.Handle) {
					continue
				}
				k := at{f.Result, f.Path}
				if _, seen := alts[k]; !seen {
					fa.sum.Returns = append(fa.sum.Returns, f)
				}
				alts[k] = append(alts[k], f.Handle)
			}
		}
	}
	for i, f := range fa.sum.Returns {
		if h, ok := choosePhi(alts[at{f.Result, f.Path}]); ok {
			fa.sum.Returns[i].Handle = h
			fa.sum.Returns[i].OrPool = h.Kind != f.Handle.Kind && orPool(alts[at{f.Result, f.Path}])
		}
	}
}

// orPool reports whether alternative handles are a pool and a transaction
// of the caller's: the caller's transaction if it has one, else the pool
// (see choosePhi).
func orPool(alts []Handle) bool {
	pool, tx := false, false
	for _, h := range alts {
		_, _, param := h.Ref.param()
		pool = pool || h.Kind == sqlsite.Pool
		tx = tx || param && h.Kind == sqlsite.Tx
	}
	return pool && tx
}

// handleFlows lists the handles that value v, of type t, carries at its
// handle paths, as flows numbered index: those a caller can map (handles of
// parameters, globals, or ones this function creates).
func (fa *fnAnalysis) handleFlows(index int, v ssa.Value, t types.Type) []Flow {
	if c, ok := v.(*ssa.Const); ok && c.IsNil() {
		return nil
	}
	paths := fa.a.valuePaths(fa.fn.Prog, t)
	if types.IsInterface(t) && !isContextType(t) && fa.a.env.Rules.KindOf(t) == sqlsite.NotHandle && OwnInterface(t) {
		// A value of an interface type carries the handles of its
		// dynamic value: repos{tx: tx} handed to a callback as a
		// Repos, returned as a Store; when the value is not made here
		// (a Tx a Begin method returned), the handles of any type the
		// program has that implements the interface.
		if d := dynamicValue(v); d != nil {
			v, t = d, d.Type()
			paths = fa.a.valuePaths(fa.fn.Prog, t)
		} else {
			paths = fa.a.interfacePaths(fa.fn.Prog, t)
		}
	}
	var out []Flow
	for _, p := range paths {
		h := fa.normalise(fa.resolve(v, p, 0))
		if h.Kind == sqlsite.NotHandle {
			h.Kind = fa.a.kindAt(t, p)
		}
		if escapes(h.Ref) || h.Ref.local() {
			out = append(out, Flow{Result: index, Path: strings.Join(p, "."), Handle: h})
		}
	}
	return out
}

// returnedText records, for a function whose first result is a string of
// SQL text (a queries package's LockJobSQL(table string) string), the texts
// it returns as templates over its parameters: callers in other packages,
// which see only its summary, resolve the text from them.
func (fa *fnAnalysis) returnedText() {
	results := fa.fn.Signature.Results()
	if results.Len() == 0 || !isStringType(results.At(0).Type()) {
		return
	}
	var all sqlsite.Text
	found := false
	for _, b := range fa.fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(ret.Results) == 0 {
			continue
		}
		t := sqlsite.ResolveWith(ret.Results[0], fa.a.externals())
		if t.Unknown {
			return
		}
		found = true
		all.SQL = append(all.SQL, t.SQL...)
		all.Params = append(all.Params, t.Params...)
		all.Templates = append(all.Templates, t.Templates...)
	}
	if found {
		fa.sum.Text = all.Returned(fa.fn)
	}
}

// isStringType reports whether t's underlying type is string.
func isStringType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// dynamicValue returns the value of a concrete type that v, of an interface
// type, was made from, or nil.
func dynamicValue(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			return x.X
		case *ssa.ChangeInterface:
			v = x.X
		default:
			return nil
		}
	}
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// position renders a position for a path frame.
func (fa *fnAnalysis) position(pos token.Pos) string {
	return fa.sourcePosition(pos).String()
}

// sourcePosition is pos in the source; where there is none (synthetic code),
// the function's name stands in for the file.
func (fa *fnAnalysis) sourcePosition(pos token.Pos) token.Position {
	if !pos.IsValid() || fa.a.env.Fset == nil {
		return token.Position{Filename: fa.name}
	}
	return fa.a.env.Fset.Position(pos)
}

// FuncName names a function for messages: "billing.invoiceAccount",
// "store.Queries.LockUsage", "api.handler$1" for a closure.
func FuncName(fn *ssa.Function) string {
	if parent := fn.Parent(); parent != nil && strings.HasPrefix(fn.Name(), parent.Name()+"$") {
		// A closure, named the way Go's stack traces name it:
		// "api.Server.handle.func1".
		return FuncName(parent) + strings.ReplaceAll(fn.Name()[len(parent.Name()):], "$", ".func")
	}
	pkg := ""
	if fn.Pkg != nil {
		pkg = fn.Pkg.Pkg.Name() + "."
	} else if fn.Origin() != nil && fn.Origin().Pkg != nil {
		pkg = fn.Origin().Pkg.Pkg.Name() + "."
	}
	if recv := fn.Signature.Recv(); recv != nil {
		t := recv.Type()
		name := strings.TrimPrefix(t.String(), "*")
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:]
		}
		if i := strings.Index(name, "["); i >= 0 {
			name = name[:i]
		}
		return pkg + name + "." + instanceName(fn)
	}
	return pkg + instanceName(fn)
}

// instanceName is a function's name, with the type arguments of an
// instance of a generic function qualified by package name only:
// "Lock[store.Account]", where go/ssa says "Lock[example.com/app/store.Account]".
func instanceName(fn *ssa.Function) string {
	targs := fn.TypeArgs()
	if fn.Origin() == nil || len(targs) == 0 {
		return fn.Name()
	}
	args := make([]string, len(targs))
	for i, t := range targs {
		args[i] = types.TypeString(t, func(p *types.Package) string { return p.Name() })
	}
	return fn.Origin().Name() + "[" + strings.Join(args, ", ") + "]"
}

// frame is a path frame at pos in this function.
func (fa *fnAnalysis) frame(pos token.Pos, what string) lockgraph.Frame {
	return lockgraph.Frame{Func: frameName(fa.fn, fa.name), Pos: fa.sourcePosition(pos), What: what}
}

// describeHandle says where a statement on handle h runs, for the report:
// "in a transaction" on a transaction, and also on a pool or connection
// that a BEGIN sent as SQL put in one (inTx); "on the pool", "on a
// dedicated connection"; "on the caller's handle" for an interface (DBTX)
// only the caller binds, which relabel rewrites where a caller does;
// "outside a transaction" for such a handle of the function's own.
func describeHandle(h Handle, inTx bool) string {
	if inTx {
		return "in a transaction"
	}
	switch h.Kind {
	case sqlsite.Pool:
		return "on the pool"
	case sqlsite.Conn:
		return "on a dedicated connection"
	case sqlsite.Tx:
		return "in a transaction"
	case sqlsite.Maybe:
		if !escapes(h.Ref) {
			// A handle of this function's own that no transaction was
			// begun on (an ORM session it created): its locks are not
			// held past the statement.
			return "outside a transaction"
		}
		return callersHandle
	}
	return fmt.Sprintf("on %s", h.Kind)
}

// callersHandle is how the label of a statement on a handle only the
// caller knows reads, until a caller binds it (relabel).
const callersHandle = "on the caller's handle"

// relabel rewrites, in this function's copy j of a callee's event ev, the
// label of the innermost frame that still reads "on the caller's handle"
// (the callee ran it on an interface such as sqlc's DBTX, a Querier or the
// handle a context carries) once this call site binds that handle to a
// transaction, a pool or a connection: the report then says what the path
// it shows runs on. A handle this function does not know either keeps the
// label, for its own callers to rewrite.
func (fa *fnAnalysis) relabel(j int, ev *Event, st *state) {
	out := fa.events[j]
	if ev.TxKind != sqlsite.Maybe || len(out.Path) == 0 {
		return
	}
	inTx := out.TxKind == sqlsite.Tx || st.sqlTx[out.Conn] && out.Conn != fresh
	if out.TxKind == sqlsite.Maybe && !inTx && escapes(out.Tx) || out.TxKind == sqlsite.NotHandle {
		return // still its own caller's handle
	}
	if inTx && ev.Hold == HoldCond && out.Hold == HoldNone {
		// The caller's connection is in a transaction it began with a
		// BEGIN sent as SQL (conn.Exec(ctx, "BEGIN")): the lock is held
		// until that transaction ends, as the label says.
		out.Hold = HoldConnTx
	}
	leaf := &out.Path[len(out.Path)-1]
	if !strings.Contains(leaf.What, callersHandle) {
		return
	}
	if inTx {
		// "in a batch on the caller's handle (one implicit
		// transaction)" runs in the caller's transaction: no batch of
		// its own.
		leaf.What = strings.Replace(leaf.What, " (one implicit transaction)", "", 1)
		leaf.What = strings.Replace(leaf.What, "in a batch "+callersHandle, callersHandle, 1)
		leaf.What = strings.Replace(leaf.What, "in a multi-statement string "+callersHandle, callersHandle, 1)
	}
	leaf.What = strings.Replace(leaf.What, callersHandle, describeHandle(Handle{Ref: out.Tx, Kind: out.TxKind}, inTx), 1)
}

// funcValue returns the function a function value denotes and, for a
// closure, the values bound to its free variables; nil when it is not known
// statically.
func funcValue(v ssa.Value) (*ssa.Function, []ssa.Value) {
	switch v := funcSource(v).(type) {
	case *ssa.Function:
		return v, nil
	case *ssa.MakeClosure:
		fn, _ := v.Fn.(*ssa.Function)
		return fn, v.Bindings
	}
	return nil, nil
}

// funcSource returns where a function value comes from, through the cells
// of captured variables: a closure calls the callback its enclosing function
// was given through the free variable that captures that parameter (a
// pointer to the enclosing function's copy of it), and the enclosing
// function passes that copy. It returns the parameter or free variable, the
// function or closure made, or v itself.
func funcSource(v ssa.Value) ssa.Value {
	for range 8 {
		switch x := v.(type) {
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return v
			}
			if fv, ok := x.X.(*ssa.FreeVar); ok {
				return fv // the captured variable
			}
			v = x.X
		case *ssa.Alloc:
			st := onlyStore(x, nil)
			if st == nil {
				return v
			}
			v = st.Val
		case *ssa.ChangeType:
			// A conversion to a named func type:
			// http.HandlerFunc(h.book).
			v = x.X
		case *ssa.MakeInterface:
			// An http.HandlerFunc given as an http.Handler: its
			// ServeHTTP calls the function.
			if !isNamed(x.X.Type(), "net/http", "HandlerFunc") {
				return v
			}
			v = x.X
		default:
			return v
		}
	}
	return v
}

// isSavepoint reports whether v is a nested transaction begun on a
// transaction (pgx's tx.Begin, a SAVEPOINT). Ending it ends the savepoint,
// not the transaction: its locks stay held until the outer transaction ends
// (after ROLLBACK TO SAVEPOINT PostgreSQL does release the savepoint's own
// locks; keeping them is the cautious reading).
func (a *Analysis) isSavepoint(v ssa.Value) bool {
	for range 4 {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
			continue
		case *ssa.ChangeInterface:
			v = x.X
			continue
		case *ssa.Extract:
			v = x.Tuple
			continue
		case *ssa.Call:
			op := a.env.Rules.Classify(x.Common())
			return op.Kind == sqlsite.Begin && op.RecvKind == sqlsite.Tx
		}
		return false
	}
	return false
}

// numParams is the number of parameters of fn, the receiver included, the
// way summaries number them. A function of another package has no
// Params in SSA (its body is not built): count its signature instead.
func numParams(fn *ssa.Function) int {
	if len(fn.Params) > 0 || fn.Blocks != nil {
		return len(fn.Params)
	}
	n := fn.Signature.Params().Len()
	if fn.Signature.Recv() != nil {
		n++
	}
	return n
}

// mergeHeld merges what a function holds at one point seen twice: the union
// of what may be held, the intersection of what is surely held.
func mergeHeld(held, surely, held2, surely2 []int) ([]int, []int) {
	merged := append(slices.Clone(held), held2...)
	slices.Sort(merged)
	var both []int
	for _, s := range surely {
		if slices.Contains(surely2, s) {
			both = append(both, s)
		}
	}
	return slices.Compact(merged), both
}

// failedCall recognises a block that ends by testing a call's error
// (if err != nil, if err == nil) and returns the successor taken when the
// call failed, and the call. A statement that failed took no lock: on that
// branch its locks are not held (the usual "lock, or return the error").
func (fa *fnAnalysis) failedCall(b *ssa.BasicBlock) (int, ssa.Instruction) {
	cond, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	if !ok || len(b.Succs) != 2 {
		return 0, nil
	}
	bin, ok := cond.Cond.(*ssa.BinOp)
	if !ok || bin.Op != token.NEQ && bin.Op != token.EQL {
		return 0, nil
	}
	v := bin.X
	if c, ok := v.(*ssa.Const); ok && c.IsNil() {
		v = bin.Y
	} else if c, ok := bin.Y.(*ssa.Const); !ok || !c.IsNil() {
		return 0, nil
	}
	call := errorOf(v)
	if call == nil {
		return 0, nil
	}
	if bin.Op == token.NEQ {
		return 0, call
	}
	return 1, call
}

// errorOf returns the call whose error result v is.
func errorOf(v ssa.Value) *ssa.Call {
	var (
		call  *ssa.Call
		index int
	)
	switch x := v.(type) {
	case *ssa.Extract:
		call, _ = x.Tuple.(*ssa.Call)
		index = x.Index
	case *ssa.Call:
		call = x
	}
	if call == nil {
		return nil
	}
	res := call.Call.Signature().Results()
	if res.Len() == 0 || index != res.Len()-1 || !types.Identical(res.At(index).Type(), types.Universe.Lookup("error").Type()) {
		return nil
	}
	return call
}

// withoutCall returns st without the locks taken at call site c.
func (fa *fnAnalysis) withoutCall(st *state, c ssa.Instruction) *state {
	out := st.clone()
	for key, i := range fa.eventIdx {
		if key.instr == c {
			out.drop(i)
		}
	}
	return out
}
