package lockseq

import (
	"fmt"
	"go/build"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// MaxImpls bounds the implementations that take locks a call through an
// interface is followed to: past it the call is too dynamic to say which
// one runs, and applying every implementation would cost more than it
// could find.
const MaxImpls = 8

// DispatchStats counts the calls through interfaces (dynamic calls) that
// the analysis met, by outcome: how much of the program it could follow.
type DispatchStats struct {
	// Calls are the dynamic calls met (handle methods, which are
	// modelled, are not counted).
	Calls int
	// Resolved were applied as calls of the implementations that take
	// locks; Impls is the number of implementations applied in all.
	Resolved, Impls int
	// NoLocks had implementations, none of which takes a lock (or none
	// the analysis can see).
	NoLocks int
	// TooMany had more than MaxImpls implementations that take locks and
	// were not followed.
	TooMany int
	// Unfollowed lists the calls counted in TooMany, as "pos\tmethod".
	Unfollowed []string
}

// Add adds o's counts to s.
func (s *DispatchStats) Add(o DispatchStats) {
	s.Calls += o.Calls
	s.Resolved += o.Resolved
	s.Impls += o.Impls
	s.NoLocks += o.NoLocks
	s.TooMany += o.TooMany
	s.Unfollowed = append(s.Unfollowed, o.Unfollowed...)
}

// impl is one implementation of an interface method: a method of this
// package, analysed here, or of another package, whose summary is a fact.
type impl struct {
	fn  *ssa.Function // set for a method analysed here
	obj *types.Func
}

// summary returns the implementation's summary.
func (a *Analysis) implSummary(m impl) *Summary {
	if m.fn != nil {
		return a.summaryOf(m.fn)
	}
	if a.env.ImportSummary != nil {
		return a.env.ImportSummary(m.obj)
	}
	return nil
}

// dispatch applies a call through an interface (store.Claim(ctx, id) on a
// Store interface) as a call of each implementation the analysis can see
// that takes locks: the concrete types of this package and of the packages
// it imports, and every method with a summary among the facts the driver
// makes visible (Env.Methods) — in the whole-program command, every package
// of the program, so that an implementation wired in main is found from
// the package that only knows the interface. With one implementation, the
// usual shape (a Store interface and its Postgres implementation), the call
// is that method's call; with several, each is a possible path and their
// effects are joined.
func (fa *fnAnalysis) dispatch(site ssa.Instruction, c *ssa.CallCommon, st *state) {
	if fa.a.env.Rules.KindOf(c.Value.Type()) != sqlsite.NotHandle {
		return // a database handle's own method, modelled or not
	}
	impls := fa.a.implementations(fa.fn.Prog, c.Value.Type(), c.Method)
	if fa.dispatched == nil {
		fa.dispatched = map[token.Pos]bool{}
	}
	// Count each call once, however often the fixpoint visits it, and
	// only calls of the program's own interfaces: an io.Writer or a
	// driver's pgx.Row is not where a program hides its SQL.
	first := !fa.dispatched[site.Pos()] && OwnInterface(c.Value.Type())
	fa.dispatched[site.Pos()] = true
	stats := &fa.a.Dispatch
	if first {
		stats.Calls++
	}
	switch {
	case len(impls) == 0:
		if first {
			stats.NoLocks++
		}
		return
	case len(impls) > MaxImpls:
		if first {
			stats.TooMany++
			stats.Unfollowed = append(stats.Unfollowed, fmt.Sprintf("%s\t%s.%s (%d implementations)",
				fa.position(site.Pos()), types.TypeString(c.Value.Type(), nil), c.Method.Name(), len(impls)))
		}
		return
	}
	if first {
		stats.Resolved++
		stats.Impls += len(impls)
	}
	args := append([]ssa.Value{c.Value}, c.Args...)
	n := c.Signature().Params().Len() + 1 // the receiver, then the parameters
	var out *state
	if len(impls) < fa.a.candidates(fa.fn.Prog, c.Value.Type(), c.Method) {
		// Some implementations take no lock: running one of them is a
		// path on which the call changes nothing.
		out = st.clone()
	}
	var alts []*state
	for i, m := range impls {
		sum := fa.a.implSummary(m)
		s := st.clone()
		scope := ""
		if len(impls) > 1 {
			scope = fmt.Sprintf("#impl%d", i)
		}
		bind := func(j int, path []string) (Handle, bool) {
			return fa.bindArg(args, nil, n, j, path)
		}
		fa.apply(site, scope, sum, calleeValues(args, nil, n), bind, s)
		if len(impls) > 1 {
			alts = append(alts, s.clone())
		}
		if out == nil {
			out = s
		} else {
			out.join(s)
		}
	}
	if out != nil {
		if len(alts) == len(impls) && len(alts) > 1 {
			fa.mustInEvery(alts, out)
		}
		*st = *out
	}
}

// mustInEvery marks surely held, in out (the join of the states after each
// implementation of a method called through an interface), a lock that
// every implementation surely took: each takes it as an event of its own
// (one SELECT ... FOR UPDATE of the run's row per back end), held on its
// own path only, but whichever runs, that lock is held after the call, a
// gate for what follows as it is when one implementation takes it.
func (fa *fnAnalysis) mustInEvery(alts []*state, out *state) {
	musts := make([][]int, len(alts))
	for i, s := range alts {
		musts[i] = sortedKeys(s.must)
	}
	for _, e := range musts[0] {
		if out.must[e] {
			continue
		}
		E := fa.events[e]
		rep, every := e, true
		for _, must := range musts[1:] {
			i := slices.IndexFunc(must, func(o int) bool { return sameLock(E, fa.events[o]) })
			if i < 0 {
				every = false
				break
			}
			if o := must[i]; fa.events[o].Hold == HoldCond {
				// The weaker hold stands for all: held if the
				// caller's handle is a transaction.
				rep = o
			}
		}
		if every {
			out.must[rep] = true
		}
	}
}

// sameLock reports whether two events take the same lock: the same lock
// and rows, held alike, on handles reached from one value (the fields in
// which two implementations keep it, Ref.root). One implementation may keep
// the caller's transaction in a field of transaction type (held until it
// ends) and another in one of interface type (held if the caller's handle
// is a transaction): alike here, as the caller's handle is the same.
func sameLock(a, b *Event) bool {
	return a.Lock == b.Lock && sameHold(a.Hold, b.Hold) && a.Rows.Key == b.Rows.Key && a.Rows.KeyColumn == b.Rows.KeyColumn &&
		a.Rows.Multi == b.Rows.Multi && a.Rows.Scope == b.Rows.Scope && a.Rows.Cols == b.Rows.Cols &&
		a.Tx.root() == b.Tx.root() && a.Conn.root() == b.Conn.root()
}

// OwnInterface reports whether iface is declared by the program: not by
// the standard library or a database API.
func OwnInterface(iface types.Type) bool {
	named, ok := types.Unalias(iface).(*types.Named)
	if !ok {
		return true // an interface literal is the program's own
	}
	if named.Obj().Pkg() == nil {
		return false // error
	}
	path := named.Obj().Pkg().Path()
	return !sqlsite.IsDriverPackage(path) && !standard(path)
}

// stdPackages caches standard reports whether a package path is the
// standard library's.
var stdPackages sync.Map

// standard reports whether path is a package of the standard library: its
// first element has no dot (no module path of a host) and GOROOT has it.
// Without a GOROOT to look in, every path without a dot counts.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	if strings.Contains(first, ".") {
		return false
	}
	if v, ok := stdPackages.Load(path); ok {
		return v.(bool)
	}
	std := true
	if root := build.Default.GOROOT; root != "" {
		_, err := os.Stat(filepath.Join(root, "src", filepath.FromSlash(path)))
		std = err == nil
	}
	stdPackages.Store(path, std)
	return std
}

// implEntry caches the implementations of one interface method: those
// that take locks, and how many there are in all.
type implEntry struct {
	locking []impl
	all     int
}

// implementations lists the implementations of method m of interface type
// iface that take locks (non-empty summaries), in a stable order.
func (a *Analysis) implementations(prog *ssa.Program, iface types.Type, m *types.Func) []impl {
	return a.implsOf(prog, iface, m).locking
}

// candidates counts every implementation of m the analysis can see, locks
// or not.
func (a *Analysis) candidates(prog *ssa.Program, iface types.Type, m *types.Func) int {
	return a.implsOf(prog, iface, m).all
}

func (a *Analysis) implsOf(prog *ssa.Program, iface types.Type, m *types.Func) implEntry {
	key := types.TypeString(iface, nil) + "." + m.Name()
	if e, ok := a.impls[key]; ok {
		return e
	}
	var e implEntry
	if it, ok := iface.Underlying().(*types.Interface); ok {
		seen := map[*types.Func]bool{}
		add := func(fn *ssa.Function, obj *types.Func) {
			if seen[obj] {
				return
			}
			seen[obj] = true
			e.all++
			s := a.implSummary(impl{fn: fn, obj: obj})
			if !s.Empty() {
				e.locking = append(e.locking, impl{fn: fn, obj: obj})
			}
		}
		for _, obj := range a.programMethods(prog, it, m) {
			fn := prog.FuncValue(obj)
			if fn != nil && (len(fn.Blocks) == 0 || fn.Pkg == nil) {
				fn = nil // another package's: its summary is a fact
			}
			add(fn, obj)
		}
		if a.env.Methods != nil {
			for _, obj := range a.env.Methods(m.Name()) {
				if Implements(obj, it) {
					add(nil, obj)
				}
			}
		}
		slices.SortFunc(e.locking, func(x, y impl) int { return compareFuncs(x.obj, y.obj) })
	}
	if a.impls == nil {
		a.impls = map[string]implEntry{}
	}
	a.impls[key] = e
	return e
}

// programMethods lists the methods named m of the named types declared in
// the packages of prog (this package and its imports) that implement it.
func (a *Analysis) programMethods(prog *ssa.Program, it *types.Interface, m *types.Func) []*types.Func {
	var out []*types.Func
	for _, pkg := range prog.AllPackages() {
		if sqlsite.IsDriverPackage(pkg.Pkg.Path()) {
			continue
		}
		for _, named := range TypesWithMethod(pkg.Pkg)[m.Name()] {
			var recv types.Type
			switch {
			case types.Implements(named, it):
				recv = named
			case types.Implements(types.NewPointer(named), it):
				recv = types.NewPointer(named)
			default:
				continue
			}
			sel := prog.MethodSets.MethodSet(recv).Lookup(m.Pkg(), m.Name())
			if sel == nil {
				continue
			}
			// The declared method, not the wrapper a pointer receiver
			// of a value method would get: its summary is the one
			// analysed here or imported as a fact.
			if obj, ok := sel.Obj().(*types.Func); ok {
				out = append(out, obj)
			}
		}
	}
	return out
}

// typeIndexes caches TypesWithMethod by package: a package's types are
// the same for every package that imports it, in one run.
var typeIndexes sync.Map // *types.Package -> map[string][]*types.Named

// TypesWithMethod indexes the named types of pkg by the names of the
// methods of their pointers: the only candidates for implementing an
// interface with such a method, so that a call through an interface checks
// those and not every type of every imported package.
func TypesWithMethod(pkg *types.Package) map[string][]*types.Named {
	if idx, ok := typeIndexes.Load(pkg); ok {
		return idx.(map[string][]*types.Named)
	}
	actual, _ := typeIndexes.LoadOrStore(pkg, IndexTypesWithMethod(pkg))
	return actual.(map[string][]*types.Named)
}

// IndexTypesWithMethod is TypesWithMethod without its cache, which keeps
// every package it is asked about alive: for types that are dropped before
// the run ends.
func IndexTypesWithMethod(pkg *types.Package) map[string][]*types.Named {
	idx := map[string][]*types.Named{}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || types.IsInterface(named) || named.TypeParams().Len() > 0 {
			continue
		}
		// The declared methods, and those promoted from embedded
		// fields: what a pointer to the type has.
		ms := types.NewMethodSet(types.NewPointer(named))
		for i := range ms.Len() {
			n := ms.At(i).Obj().Name()
			idx[n] = append(idx[n], named)
		}
	}
	return idx
}

// Implements reports whether method obj's receiver type, or a pointer to
// it, implements it: whether a call of it's method of obj's name may run
// obj.
func Implements(obj *types.Func, it *types.Interface) bool {
	recv := obj.Signature().Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || types.IsInterface(named) || named.TypeParams().Len() > 0 {
		return false
	}
	return types.Implements(named, it) || types.Implements(types.NewPointer(named), it)
}

// compareFuncs orders functions by package path, then full name.
func compareFuncs(x, y *types.Func) int {
	if c := cmpPkg(x.Pkg(), y.Pkg()); c != 0 {
		return c
	}
	if x.FullName() < y.FullName() {
		return -1
	}
	if x.FullName() > y.FullName() {
		return 1
	}
	return 0
}

func cmpPkg(x, y *types.Package) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return -1
	case y == nil:
		return 1
	case x.Path() < y.Path():
		return -1
	case x.Path() > y.Path():
		return 1
	}
	return 0
}

// maxIfacePaths bounds the handle paths a value of an interface type is
// followed at.
const maxIfacePaths = 4

// interfacePaths returns the paths at which a value of interface type
// iface may hold a handle: those of the types implementing it that the
// analysis can see (as for dispatch: this package, its imports, and the
// receivers of the methods with summaries the driver lists), a txStore{tx}
// behind a Tx interface. The kind at each path is left to the methods that
// use it.
func (a *Analysis) interfacePaths(prog *ssa.Program, iface types.Type) [][]string {
	key := types.TypeString(iface, nil)
	if p, ok := a.ifacePaths[key]; ok {
		return p
	}
	var out [][]string
	it, ok := iface.Underlying().(*types.Interface)
	if ok && it.NumMethods() > 0 {
		seen := map[string]bool{}
		addType := func(t types.Type) {
			for _, p := range a.handlePaths(t) {
				k := strings.Join(p, ".")
				if len(p) > 1 && p[len(p)-1] == ctxTx {
					// A context an implementation keeps: its own
					// handle fields are where a transaction is
					// looked for, and they fill the bound first.
					continue
				}
				if !seen[k] && len(out) < maxIfacePaths && len(p) > 0 {
					seen[k] = true
					out = append(out, p)
				}
			}
		}
		m := it.Method(0)
		for _, obj := range a.programMethods(prog, it, m) {
			addType(obj.Signature().Recv().Type())
		}
		if a.env.Methods != nil {
			for _, obj := range a.env.Methods(m.Name()) {
				if Implements(obj, it) {
					addType(obj.Signature().Recv().Type())
				}
			}
		}
	}
	if a.ifacePaths == nil {
		a.ifacePaths = map[string][][]string{}
	}
	a.ifacePaths[key] = out
	return out
}

// invokeResult resolves result index, at field path, of a call through an
// interface: the handle the implementations' summaries return there (the
// first that returns one), in this function's terms.
func (fa *fnAnalysis) invokeResult(c *ssa.Call, index int, path []string) (Handle, bool) {
	cc := c.Common()
	if fa.a.env.Rules.KindOf(cc.Value.Type()) != sqlsite.NotHandle {
		return Handle{}, false
	}
	want := strings.Join(path, ".")
	args := append([]ssa.Value{cc.Value}, cc.Args...)
	n := cc.Signature().Params().Len() + 1
	for i, m := range fa.a.implementations(fa.fn.Prog, cc.Value.Type(), cc.Method) {
		sum := fa.a.implSummary(m)
		for _, f := range sum.Returns {
			if f.Result != index || f.Path != want {
				continue
			}
			bind := func(j int, path []string) (Handle, bool) {
				return fa.bindArg(args, nil, n, j, path)
			}
			return fa.mapHandle(f.Handle, c, fmt.Sprintf("#impl%d", i), bind), true
		}
	}
	return Handle{}, false
}

// valuePaths lists the paths at which a value of type t holds a handle, as
// handlePaths does, and also behind its fields of interface types: the
// repositories of a Repos struct, each an interface whose implementation
// keeps the transaction (Repos{Accounts: &accountRepo{q: tx}} is
// "Accounts.q").
func (a *Analysis) valuePaths(prog *ssa.Program, t types.Type) [][]string {
	out := a.handlePaths(t)
	s := structOf(t)
	if s == nil || a.env.Rules.KindOf(t) != sqlsite.NotHandle {
		return out
	}
	for f := range s.Fields() {
		ft := f.Type()
		if !types.IsInterface(ft) || isContextType(ft) || a.env.Rules.KindOf(ft) != sqlsite.NotHandle || !OwnInterface(ft) {
			continue
		}
		for _, p := range a.interfacePaths(prog, ft) {
			if len(p)+1 <= maxPath {
				out = append(out, prepend([]string{f.Name()}, p))
			}
		}
	}
	return out
}

// ForgetTypes empties the package's caches of what it found in types, each
// keyed by a types object: a driver that drops a program's types calls it
// so that the caches do not keep them alive. The next use fills them again.
func ForgetTypes() {
	typeIndexes.Clear()
}

// sameHold reports whether two holds are alike for sameLock.
func sameHold(a, b Hold) bool {
	tx := func(h Hold) bool { return h == HoldTx || h == HoldCond }
	return a == b || tx(a) && tx(b)
}
