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

// Rules are the user-declared rules, which cover what no model can infer:
// a function the analysis cannot see into (a wrapper compiled elsewhere, a
// package that runs SQL through reflection) that runs a query given as an
// argument (a sink), or that runs a callback inside a transaction it opens
// (a transaction runner). The analyzer makes them from its -sinks and
// -txrunners flags (NewRules) and hands them to the lock analysis
// (lockseq.Env.Rules): they are a value, not this package's state, and do
// not change once made. A nil *Rules declares none.
type Rules struct {
	*ruleSet
	// ext is what the analysis of the package being analysed knows of
	// other packages (WithExternals): a model's table name declared
	// elsewhere.
	ext *Externals
}

// ruleSet is the declared rules, shared by the Rules of every package.
type ruleSet struct {
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
	// impl caches, by method (*types.Func), the rule of the declared
	// interface method it implements, or none (implRule).
	impl sync.Map
}

// methodRule is a rule on a method: import path, type and method names,
// and whether it is a sink or a runner with its argument index.
type methodRule struct {
	pkg, typ, method string
	runner           bool
	n                int
}

// NewRules makes the rules of two comma-separated lists of
// "import/path.Func:N" or "import/path.Type.Method:N": sinks, functions
// that run the SQL text of their argument N (counted from 0, receiver
// excluded) on their receiver; and txRunners, functions that begin a
// transaction, call the callback in their argument N with it, and end it.
func NewRules(sinks, txRunners string) (*Rules, error) {
	sm, err := parseRules(sinks)
	if err != nil {
		return nil, fmt.Errorf("sinks: %w", err)
	}
	rm, err := parseRules(txRunners)
	if err != nil {
		return nil, fmt.Errorf("txrunners: %w", err)
	}
	handles := map[string]bool{}
	for name := range sm {
		if i := strings.LastIndexByte(name, '.'); i > 0 && strings.Contains(name[strings.LastIndexByte(name[:i], '/')+1:i], ".") {
			handles[name[:i]] = true
		}
	}
	return &Rules{ruleSet: &ruleSet{
		sinks: sm, runners: rm, handleTypes: handles,
		sinkPkgs: rulePackages(sm), runnerPkgs: rulePackages(rm),
		byMethod: indexMethods(sm, rm),
	}}, nil
}

// externals returns what the package's analysis knows of others, or nil.
func (rs *Rules) externals() *Externals {
	if rs == nil {
		return nil
	}
	return rs.ext
}

// WithExternals returns the rules for the analysis of one package, which
// knows ext of the other packages (a model's TableName declared in
// another package, from its fact). rs may be nil: no declared rules.
func (rs *Rules) WithExternals(ext *Externals) *Rules {
	if rs == nil {
		return &Rules{ruleSet: &ruleSet{}, ext: ext}
	}
	return &Rules{ruleSet: rs.ruleSet, ext: ext}
}

// Sinks returns the declared sinks in the form NewRules takes, sorted.
func (rs *Rules) Sinks() string {
	if rs == nil {
		return ""
	}
	return formatRules(rs.sinks)
}

// TxRunners returns the declared runners in the form NewRules takes,
// sorted.
func (rs *Rules) TxRunners() string {
	if rs == nil {
		return ""
	}
	return formatRules(rs.runners)
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
func (rs *Rules) userHandle(t types.Type) bool {
	pkg, name, ok := namedPath(t)
	if !ok {
		return false
	}
	return rs != nil && rs.handleTypes[pkg+"."+name]
}

// classifyUser applies the user-declared rules to a call: to a call of the
// function or method a rule names (a method of an interface included,
// called through it), and to a call of a method that implements a declared
// interface method (implRule).
func (rs *Rules) classifyUser(op Op, fn *types.Func, recv ssa.Value, call *ssa.CallCommon) (Op, bool) {
	if rs == nil || len(rs.sinks) == 0 && len(rs.runners) == 0 {
		return op, false
	}
	name := ruleName(fn)
	sink, isSink := rs.sinks[name]
	run, isRunner := rs.runners[name]
	// A rule on an interface method, applied through the interface or to
	// an implementation.
	viaIface := fn.Signature().Recv() != nil && types.IsInterface(fn.Signature().Recv().Type())
	if !isSink && !isRunner {
		if r, ok := rs.implRule(fn, call); ok {
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
			op.Recv = rs.firstHandle(op.Args)
		}
		if op.Recv == nil {
			return op, false
		}
		op.RecvKind = rs.KindOf(op.Recv.Type())
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
		op.Kind, op.Func, op.FuncTx = BeginFunc, run, rs.callbackTxParam(cb)
		op.Recv = recv
		if op.Recv == nil {
			op.Recv = rs.firstHandle(op.Args)
		}
		if op.Recv == nil {
			op.Recv = op.Args[run]
		}
		op.RecvKind = rs.KindOf(op.Recv.Type())
		return op, true
	}
	return op, false
}

// implRule returns the rule that applies to fn because its receiver type
// implements a declared interface that has the method: a rule on
// port.Store.Exec applies to every implementation's Exec, called on the
// concrete type as well as through the interface. The interface is looked
// up among the packages of the calling program (the caller's imports, the
// implementation need not import it).
func (rs *Rules) implRule(fn *types.Func, call *ssa.CallCommon) (methodRule, bool) {
	recv := fn.Signature().Recv()
	if recv == nil || types.IsInterface(recv.Type()) || call == nil {
		return methodRule{}, false
	}
	cands := rs.byMethod[fn.Name()]
	if len(cands) == 0 {
		return methodRule{}, false
	}
	if r, ok := rs.impl.Load(fn); ok {
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
	rs.impl.Store(fn, found)
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
func (rs *Rules) firstHandle(args []ssa.Value) ssa.Value {
	for _, a := range args {
		if rs.KindOf(a.Type()) != NotHandle {
			return a
		}
	}
	return nil
}

// callbackTxParam returns the parameter of a runner's callback that
// receives the transaction: the first handle, else the first context (a
// transaction carried in it), else the first.
func (rs *Rules) callbackTxParam(cb *types.Signature) int {
	ctx := -1
	for i := range cb.Params().Len() {
		t := cb.Params().At(i).Type()
		if rs.KindOf(t) != NotHandle {
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
func (rs *Rules) IsRulePackage(path string) bool {
	return rs != nil && (rs.sinkPkgs[path] || rs.runnerPkgs[path])
}

// ForgetTypes empties the rules' cache of the methods they found to
// implement a declared interface method, keyed by types objects (see the
// package's ForgetTypes).
func (rs *Rules) ForgetTypes() {
	if rs != nil {
		rs.impl.Clear()
	}
}
