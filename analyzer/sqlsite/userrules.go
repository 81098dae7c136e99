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
	// pkgs are the packages that declare rules: modelled like the
	// database APIs, so that a package importing one is analysed.
	sinkPkgs, runnerPkgs map[string]bool
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

// classifyUser applies the user-declared rules to a call.
func classifyUser(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	userRules.RLock()
	if len(userRules.sinks) == 0 && len(userRules.runners) == 0 {
		userRules.RUnlock()
		return op, false
	}
	name := ruleName(fn)
	sink, isSink := userRules.sinks[name]
	run, isRunner := userRules.runners[name]
	userRules.RUnlock()
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

// isRulePackage reports whether a rule names a function of package path.
func isRulePackage(path string) bool {
	userRules.RLock()
	defer userRules.RUnlock()
	return userRules.sinkPkgs[path] || userRules.runnerPkgs[path]
}
