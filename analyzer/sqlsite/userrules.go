package sqlsite

import (
	"fmt"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// User-declared rules cover what no model can infer: a function the
// analysis cannot see into (a wrapper compiled elsewhere, a package that
// runs SQL through reflection) that runs a query given as an argument (a
// sink), or that runs a callback inside a transaction it opens (a
// transaction runner). They are set once, from the analyzer's -sinks and
// -txrunners flags, before any package is analysed.
var userRules struct {
	sync.RWMutex
	sinks, runners map[string]int
	// handleTypes are the receiver types of declared sink methods: a
	// value of such a type is the caller's handle.
	handleTypes map[string]bool
	// pkgs are the packages that declare rules: a package importing one
	// is analysed, as one importing a database API is (IsRulePackage).
	sinkPkgs, runnerPkgs map[string]bool
	// byMethod indexes the rules of methods by method name, for the
	// methods that implement a declared interface method (implRule).
	byMethod map[string][]methodRule
}

// methodRule is a rule on a method: import path, type and method names,
// and whether it is a sink or a runner with its argument index.
type methodRule struct {
	pkg, typ, method string
	runner           bool
	n                int
}

// SetSinks sets the user-declared sinks from a comma-separated list of
// "import/path.Func:N" or "import/path.Type.Method:N": the function runs
// the SQL text of its argument N (counted from 0, receiver excluded) on
// its receiver.
func SetSinks(spec string) error {
	m, err := parseRules(spec)
	if err != nil {
		return fmt.Errorf("sinks: %w", err)
	}
	handles := map[string]bool{}
	for name := range m {
		if i := strings.LastIndexByte(name, '.'); i > 0 && strings.Contains(name[strings.LastIndexByte(name[:i], '/')+1:i], ".") {
			handles[name[:i]] = true
		}
	}
	userRules.Lock()
	defer userRules.Unlock()
	userRules.sinks, userRules.handleTypes, userRules.sinkPkgs = m, handles, rulePackages(m)
	userRules.byMethod = indexMethods(userRules.sinks, userRules.runners)
	implRules.Clear()
	return nil
}

// SetTxRunners sets the user-declared transaction runners from a
// comma-separated list of "import/path.Func:N" or
// "import/path.Type.Method:N": the function begins a transaction, calls
// the callback in its argument N with it, and ends it.
func SetTxRunners(spec string) error {
	m, err := parseRules(spec)
	if err != nil {
		return fmt.Errorf("txrunners: %w", err)
	}
	userRules.Lock()
	defer userRules.Unlock()
	userRules.runners, userRules.runnerPkgs = m, rulePackages(m)
	userRules.byMethod = indexMethods(userRules.sinks, userRules.runners)
	implRules.Clear()
	return nil
}

// Sinks returns the user-declared sinks in the form SetSinks takes.
func Sinks() string {
	userRules.RLock()
	defer userRules.RUnlock()
	return formatRules(userRules.sinks)
}

// TxRunners returns the user-declared runners in the form SetTxRunners
// takes.
func TxRunners() string {
	userRules.RLock()
	defer userRules.RUnlock()
	return formatRules(userRules.runners)
}

func parseRules(spec string) (map[string]int, error) {
	m := map[string]int{}
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		i := strings.LastIndexByte(item, ':')
		if i < 0 {
			return nil, fmt.Errorf("%q: want import/path.Func:N", item)
		}
		name, num := item[:i], item[i+1:]
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q: argument index %q is not a number from 0", item, num)
		}
		slash := strings.LastIndexByte(name, '/')
		if !strings.Contains(name[slash+1:], ".") || strings.HasSuffix(name, ".") {
			return nil, fmt.Errorf("%q: want import/path.Func or import/path.Type.Method before the colon", item)
		}
		m[name] = n
	}
	return m, nil
}

func formatRules(m map[string]int) string {
	var out []string
	for name, n := range m {
		out = append(out, name+":"+strconv.Itoa(n))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// ruleName names a function the way rules do: "import/path.Func" or
// "import/path.Type.Method".
func ruleName(fn *types.Func) string {
	name := fn.Pkg().Path() + "."
	if recv := fn.Signature().Recv(); recv != nil {
		if _, tname, ok := namedPath(recv.Type()); ok {
			name += tname + "."
		}
	}
	return name + fn.Name()
}

// userHandle reports whether t is the receiver type of a declared sink.
func userHandle(t types.Type) bool {
	pkg, name, ok := namedPath(t)
	if !ok {
		return false
	}
	userRules.RLock()
	defer userRules.RUnlock()
	return userRules.handleTypes[pkg+"."+name]
}

// classifyUser applies the user-declared rules to a call: to a call of the
// function or method a rule names (a method of an interface included,
// called through it), and to a call of a method that implements a declared
// interface method (implRule).
func classifyUser(op Op, fn *types.Func, recv ssa.Value, call *ssa.CallCommon) (Op, bool) {
	userRules.RLock()
	if len(userRules.sinks) == 0 && len(userRules.runners) == 0 {
		userRules.RUnlock()
		return op, false
	}
	name := ruleName(fn)
	sink, isSink := userRules.sinks[name]
	run, isRunner := userRules.runners[name]
	userRules.RUnlock()
	// A rule on an interface method, applied through the interface or to
	// an implementation.
	viaIface := fn.Signature().Recv() != nil && types.IsInterface(fn.Signature().Recv().Type())
	if !isSink && !isRunner {
		if r, ok := implRule(fn, call); ok {
			viaIface = true
			if r.runner {
				run, isRunner = r.n, true
			} else {
				sink, isSink = r.n, true
			}
		}
	}
	sig := fn.Signature()
	switch {
	case isSink && sink < len(op.Args) && isString(op.Args[sink].Type()):
		op.Kind, op.Query, op.Params = Query, sink, -1
		if sink+1 < len(op.Args) {
			op.Params = sink + 1
		}
		op.Recv = recv
		if recv == nil {
			op.Recv = firstHandle(op.Args)
		}
		if op.Recv == nil {
			return op, false
		}
		op.RecvKind = KindOf(op.Recv.Type())
		if op.RecvKind == NotHandle {
			// An implementation of a declared interface: a handle
			// only the caller knows, as the interface is.
			op.RecvKind = Maybe
		}
		// A store behind a declared interface is handed no transaction
		// as a value: it finds the one its context carries, as a
		// declared runner passes it (InTx(ctx, func(ctx) error)).
		op.CtxTx = viaIface && slices.ContainsFunc(op.Args, func(a ssa.Value) bool { return isContext(a.Type()) })
		return op, true
	case isRunner && run < len(op.Args):
		cb, ok := sig.Params().At(run).Type().Underlying().(*types.Signature)
		if !ok {
			return op, false
		}
		op.Kind, op.Func, op.FuncTx = BeginFunc, run, callbackTxParam(cb)
		op.Recv = recv
		if op.Recv == nil {
			op.Recv = firstHandle(op.Args)
		}
		if op.Recv == nil {
			op.Recv = op.Args[run]
		}
		op.RecvKind = KindOf(op.Recv.Type())
		return op, true
	}
	return op, false
}

// implRules caches, by method (*types.Func), the rule of the declared
// interface method it implements, or none.
var implRules sync.Map

// implRule returns the rule that applies to fn because its receiver type
// implements a declared interface that has the method: a rule on
// port.Store.Exec applies to every implementation's Exec, called on the
// concrete type as well as through the interface. The interface is looked
// up among the packages of the calling program (the caller's imports, the
// implementation need not import it).
func implRule(fn *types.Func, call *ssa.CallCommon) (methodRule, bool) {
	recv := fn.Signature().Recv()
	if recv == nil || types.IsInterface(recv.Type()) || call == nil {
		return methodRule{}, false
	}
	userRules.RLock()
	cands := userRules.byMethod[fn.Name()]
	userRules.RUnlock()
	if len(cands) == 0 {
		return methodRule{}, false
	}
	if r, ok := implRules.Load(fn); ok {
		return *r.(*methodRule), true
	}
	callee := call.StaticCallee()
	var found *methodRule
	for i, r := range cands {
		if callee == nil || callee.Prog == nil {
			break
		}
		pkg := callee.Prog.ImportedPackage(r.pkg)
		if pkg == nil {
			continue
		}
		obj, ok := pkg.Pkg.Scope().Lookup(r.typ).(*types.TypeName)
		if !ok {
			continue
		}
		it, ok := obj.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		if types.Implements(recv.Type(), it) {
			found = &cands[i]
			break
		}
	}
	if found == nil {
		// Not cached: another pass's program may import the
		// interface's package when this one does not.
		return methodRule{}, false
	}
	implRules.Store(fn, found)
	return *found, true
}

// indexMethods indexes the rules on methods by method name.
func indexMethods(sinks, runners map[string]int) map[string][]methodRule {
	out := map[string][]methodRule{}
	add := func(m map[string]int, runner bool) {
		for name, n := range m {
			slash := strings.LastIndexByte(name, '/')
			parts := strings.Split(name[slash+1:], ".")
			if len(parts) < 3 {
				continue // a function
			}
			k := len(parts)
			r := methodRule{pkg: name[:slash+1] + strings.Join(parts[:k-2], "."), typ: parts[k-2], method: parts[k-1], runner: runner, n: n}
			out[r.method] = append(out[r.method], r)
		}
	}
	add(sinks, false)
	add(runners, true)
	for _, rs := range out {
		slices.SortFunc(rs, func(a, b methodRule) int {
			return strings.Compare(a.pkg+"."+a.typ, b.pkg+"."+b.typ)
		})
	}
	return out
}

// firstHandle returns the first argument that is a database handle.
func firstHandle(args []ssa.Value) ssa.Value {
	for _, a := range args {
		if KindOf(a.Type()) != NotHandle {
			return a
		}
	}
	return nil
}

// callbackTxParam returns the parameter of a runner's callback that
// receives the transaction: the first handle, else the first context (a
// transaction carried in it), else the first.
func callbackTxParam(cb *types.Signature) int {
	ctx := -1
	for i := range cb.Params().Len() {
		t := cb.Params().At(i).Type()
		if KindOf(t) != NotHandle {
			return i
		}
		if ctx < 0 && isContext(t) {
			ctx = i
		}
	}
	return max(ctx, 0)
}

// rulePackages returns the import paths of the rules' functions.
func rulePackages(m map[string]int) map[string]bool {
	out := map[string]bool{}
	for name := range m {
		slash := strings.LastIndexByte(name, '/')
		if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
			out[name[:slash+1+dot]] = true
		}
	}
	return out
}

// IsRulePackage reports whether a rule names a function of package path: a
// package that imports it can run SQL, although the rule's package itself
// is analysed like any other (an interface declared as a sink may sit
// beside the code that calls it).
func IsRulePackage(path string) bool {
	userRules.RLock()
	defer userRules.RUnlock()
	return userRules.sinkPkgs[path] || userRules.runnerPkgs[path]
}
