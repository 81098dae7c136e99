package sqlsite

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// maxTexts bounds the number of alternative query texts kept for one value,
// so that a long chain of branches cannot blow up the analysis.
const maxTexts = 32

// maxDepth bounds how deep resolution follows the expressions that build a
// value (a concatenation of twenty parts is twenty deep), and maxCalls how
// many functions it resolves inline, one inside the other.
// maxSteps bounds the values one resolution looks at: a value built from
// itself twice over (q = q + q, again and again) would otherwise cost
// exponential time.
const (
	maxDepth = 64
	maxCalls = 4
	maxSteps = 20000
)

// Text is what is known about the SQL text a string value can hold.
type Text struct {
	// SQL lists the possible constant texts, sorted and without repeats.
	SQL []string
	// Params lists the indexes of the enclosing function's parameters
	// (free variables of a closure follow its parameters) that the text
	// may come from unchanged: the function is then itself a SQL sink
	// for its callers.
	Params []int
	// Templates lists the possible texts built from constants and the
	// enclosing function's parameters (a table name spliced into a
	// query): each caller binds them to what it passes (Bind).
	Templates []Template
	// Unknown is set when some alternative could not be resolved (it came
	// from a run-time value); Why then says what was not constant.
	Unknown bool
	Why     string
	// Seq is set when the texts are not alternatives but a sequence that
	// runs in the order of SQL: the statements of a constant list, one per
	// iteration of a loop over it.
	Seq bool
}

// Resolve returns the possible texts of the string value v. It follows
// constants (including other packages' constants, which SSA inlines),
// string concatenation, φ-nodes (each alternative is a possible query),
// fmt.Sprintf, strings.Builder and bytes.Buffer writes, strings.Join of
// slice literals and a few pure functions of strings and strconv,
// conversions, package-level variables initialised with constants in the
// same package, //go:embed variables and embed.FS files, and functions of
// the same package that return strings. Where the text depends on the
// enclosing function's parameters, it is a template (or the parameter
// itself) that each caller binds.
func Resolve(v ssa.Value) Text { return ResolveWith(v, nil) }

// Externals is what the analysis knows, from facts, of other packages'
// functions and variables, whose bodies and initialisers are not in this
// package's SSA.
type Externals struct {
	// Text returns the texts a function returns (result 0), as templates
	// over its parameters, or nil.
	Text func(fn *types.Func) []Template
	// Strings returns the constant elements a package-level []string
	// variable is initialised with.
	Strings func(v *types.Var) ([]string, bool)
	// TableName returns the constant a model's TableName method
	// returns (see ConstantResult), or the name of a go-jet table
	// variable (see JetTableName).
	TableName func(obj types.Object) (string, bool)
}

// ResolveWith is Resolve, also through other packages' functions that
// return SQL text (a queries package's LockJobSQL(table)) and []string
// variables (a column list), as ext knows them.
func ResolveWith(v ssa.Value, ext *Externals) Text {
	r := resolver{seen: map[ssa.Value]bool{}, top: v.Parent(), ext: ext}
	return r.resolve(v, 0).text(r.top)
}

// resolver resolves values to alternatives of template nodes.
type resolver struct {
	seen map[ssa.Value]bool
	// top is the function whose parameters Param nodes refer to.
	top *ssa.Function
	// env binds the parameters (and free variables) of a function whose
	// result is being resolved (a query builder such as
	// lockQuery(table string)) to what its call site passes, resolved in
	// the call site's own environment.
	env map[ssa.Value]bound
	// calls counts the functions being resolved inline, steps the values
	// looked at.
	calls, steps int
	// ext knows other packages' functions and variables, or is nil.
	ext *Externals
}

// bound is a value passed to a function resolved inline, with the
// environment it is resolved in.
type bound struct {
	v   ssa.Value
	env map[ssa.Value]bound
}

// alts are the alternatives a value can take, as template nodes: constant
// where the value is known, with parameters where callers bind it.
type alts struct {
	nodes   []Node
	unknown bool
	why     string
	seq     bool
}

func single(n Node) alts { return alts{nodes: []Node{n}} }

func unknown(why string) alts { return alts{unknown: true, why: why} }

// text classifies the alternatives: constant texts, parameters passed
// through unchanged and templates of fn.
func (a alts) text(fn *ssa.Function) Text {
	t := Text{Unknown: a.unknown, Why: a.why, Seq: a.seq}
	seen := map[string]bool{}
	for _, n := range a.nodes {
		switch {
		case n.isString():
			t.SQL = append(t.SQL, n.Text)
		case n.Op == OpParam && !n.Spread && n.Field == 0:
			if !slices.Contains(t.Params, n.Param) {
				t.Params = append(t.Params, n.Param)
			}
		case n.isConst():
			// A number is no query text.
			t.Unknown = true
			if t.Why == "" {
				t.Why = "a constant that is not a string"
			}
		default:
			if k := n.String(); !seen[k] {
				seen[k] = true
				t.Templates = append(t.Templates, Template{Root: n, Func: funcName(fn), Names: paramNames(fn)})
			}
		}
	}
	if !t.Seq {
		t.SQL = dedupe(t.SQL)
	}
	sort.Ints(t.Params)
	return t
}

// funcName names a function for messages ("store.lockRow").
func funcName(fn *ssa.Function) string {
	if fn == nil {
		return "the function"
	}
	name := fn.Name()
	if recv := fn.Signature.Recv(); recv != nil {
		_, t, ok := namedPath(recv.Type())
		if ok {
			name = t + "." + name
		}
	}
	if fn.Pkg != nil {
		return fn.Pkg.Pkg.Name() + "." + name
	}
	return name
}

// paramNames lists the names of fn's parameters and free variables.
func paramNames(fn *ssa.Function) []string {
	if fn == nil {
		return nil
	}
	var out []string
	for _, p := range fn.Params {
		out = append(out, p.Name())
	}
	for _, fv := range fn.FreeVars {
		out = append(out, fv.Name())
	}
	return out
}

// resolve returns the alternatives of a string value (a query text).
func (r *resolver) resolve(v ssa.Value, depth int) alts { return r.value(v, depth) }

// value returns the alternatives of a value of any basic type: a string,
// or a number or bool formatted into one.
func (r *resolver) value(v ssa.Value, depth int) alts {
	r.steps++
	if depth > maxDepth || r.steps > maxSteps {
		return unknown("a value built through too many steps")
	}
	if r.seen[v] {
		return unknown("a value built in a loop")
	}
	r.seen[v] = true
	defer delete(r.seen, v)

	if _, built := v.(*builtText); !built && jetTableType(v.Type()) {
		return r.jetTable(v, depth)
	}
	switch v := v.(type) {
	case *builtText:
		return r.builtText(v, depth)
	case *ssa.Const:
		if n, ok := constValue(v); ok {
			return single(n)
		}
		return unknown("a constant of a type fmt does not format as a value")
	case *ssa.Parameter, *ssa.FreeVar:
		return r.param(v, depth)
	case *ssa.BinOp:
		if v.Op == token.ADD && isString(v.Type()) {
			return concat(r.value(v.X, depth+1), r.value(v.Y, depth+1))
		}
	case *ssa.Phi:
		var out alts
		for _, e := range v.Edges {
			out = union(out, r.value(e, depth+1))
		}
		return out
	case *ssa.ChangeType:
		return r.value(v.X, depth+1)
	case *ssa.MakeInterface:
		if hasStringMethod(v.X.Type()) {
			return unknown("a value of type " + v.X.Type().String() + ", which has its own String method")
		}
		return r.value(v.X, depth+1)
	case *ssa.ChangeInterface:
		return r.value(v.X, depth+1)
	case *ssa.Convert:
		switch {
		case isString(v.X.Type()):
			return r.value(v.X, depth+1)
		case isBytes(v.X.Type()) && isString(v.Type()):
			return r.bytes(v.X, depth+1)
		case isInteger(v.X.Type()) && isInteger(v.Type()):
			// int64(shard): the same number, as fmt prints it (a
			// constant argument is converted by the compiler).
			return r.value(v.X, depth+1)
		}
	case *ssa.UnOp:
		if v.Op == token.MUL {
			switch x := v.X.(type) {
			case *ssa.Global:
				return r.global(x, depth)
			case *ssa.Alloc:
				return r.value(x, depth+1)
			case *ssa.FreeVar:
				// A variable a closure captures by reference: the
				// caller's binding is its address, resolved there.
				return r.value(x, depth+1)
			case *ssa.IndexAddr:
				if t, ok := r.listElem(x, depth); ok {
					return t
				}
			case *ssa.FieldAddr:
				return r.fieldValue(x.X, x.Field, depth)
			}
		}
	case *ssa.Alloc:
		// The address of a local variable (one a closure captures, say):
		// any text stored into it.
		return r.stores(v, depth)
	case *ssa.Field:
		return r.fieldValue(v.X, v.Field, depth)
	case *ssa.Call:
		return r.call(v, 0, depth)
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			return r.call(c, v.Index, depth)
		}
		if l, ok := v.Tuple.(*ssa.Lookup); ok && v.Index == 0 {
			return r.lookup(l, depth)
		}
	case *ssa.Lookup:
		if !v.CommaOk {
			return r.lookup(v, depth)
		}
	}
	return unknown(describe(v))
}

// param resolves a parameter or free variable: what the call site passes
// when the function is resolved inline, else a parameter of the function
// the text is resolved in, which its callers bind.
func (r *resolver) param(v ssa.Value, depth int) alts {
	if b, ok := r.env[v]; ok {
		outer := r.env
		r.env = b.env
		defer func() { r.env = outer }()
		return r.value(b.v, depth+1)
	}
	fn := v.Parent()
	if fn == nil || fn != r.top {
		return unknown("parameter " + v.Name() + " of " + funcName(fn))
	}
	switch x := v.(type) {
	case *ssa.Parameter:
		if i := paramIndex(x); i >= 0 {
			return single(paramNode(i))
		}
	case *ssa.FreeVar:
		if i := slices.Index(fn.FreeVars, x); i >= 0 {
			return single(paramNode(len(fn.Params) + i))
		}
	}
	return unknown(describe(v))
}

// describe says what a value that is not constant is, for -debug.
func describe(v ssa.Value) string {
	switch x := v.(type) {
	case *ssa.Call:
		if callee := x.Call.StaticCallee(); callee != nil {
			return "the result of " + calleeName(callee)
		}
		if x.Call.IsInvoke() {
			return "the result of method " + x.Call.Method.Name() + " called through an interface"
		}
		return "the result of a function value"
	case *ssa.Extract:
		return describe(x.Tuple)
	case *ssa.UnOp:
		switch y := x.X.(type) {
		case *ssa.FieldAddr:
			return "field " + fieldName(y.X.Type(), y.Field) + " of a struct"
		case *ssa.Global:
			return "package variable " + y.Name() + ", which is not constant"
		case *ssa.IndexAddr:
			return "an element of a slice or array"
		}
		if x.Op == token.ARROW {
			return "a value received from a channel"
		}
		return "a value read through a pointer"
	case *ssa.Field:
		return "field " + fieldName(x.X.Type(), x.Field) + " of a struct"
	case *ssa.Lookup:
		return "a map element"
	case *ssa.Index:
		return "an element of an array"
	case *ssa.Parameter:
		return "parameter " + x.Name()
	case *ssa.Convert:
		return "a conversion of " + describe(x.X)
	case *ssa.BinOp:
		return "an expression computed at run time"
	}
	return "a value computed at run time"
}

// calleeName names a called function as Go code spells it: "os.Getenv",
// "(*strings.Builder).String".
func calleeName(fn *ssa.Function) string {
	if fn.Signature.Recv() != nil || fn.Pkg == nil {
		return fn.String()
	}
	return fn.Pkg.Pkg.Name() + "." + fn.Name()
}

// fieldName names field i of the struct t points to.
func fieldName(t types.Type, i int) string {
	if s := structOfType(t); s != nil && i < s.NumFields() {
		return s.Field(i).Name()
	}
	return strconv.Itoa(i)
}

// hasStringMethod reports whether fmt would format a value of type t with
// its own String (or Error) method rather than as its value.
func hasStringMethod(t types.Type) bool {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return false
	}
	for _, name := range []string{"String", "Error"} {
		for _, recv := range []types.Type{t, types.NewPointer(t)} {
			if types.NewMethodSet(recv).Lookup(nil, name) != nil {
				return true
			}
			if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
				if sel := types.NewMethodSet(recv).Lookup(n.Obj().Pkg(), name); sel != nil {
					return true
				}
			}
		}
	}
	return false
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func isBytes(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

// global resolves a package-level string variable from the stores to it in
// its package's init function.
func (r *resolver) global(g *ssa.Global, depth int) alts {
	init := g.Pkg.Func("init")
	var out alts
	found := false
	if init != nil {
		for _, b := range init.Blocks {
			for _, instr := range b.Instrs {
				if st, ok := instr.(*ssa.Store); ok && st.Addr == g {
					// The initialiser is in init's terms: its
					// parameters mean nothing here.
					top := r.top
					r.top = nil
					out = union(out, r.value(st.Val, depth+1))
					r.top = top
					found = true
				}
			}
		}
	}
	if !found {
		if text, ok := embedText(g); ok {
			return single(constNode(text))
		}
		return unknown("package variable " + g.Name() + ", which is not initialised with a constant")
	}
	// A variable can be reassigned anywhere; only an unexported one
	// that nobody else stores to is really known. Keep it simple: trust
	// the initialiser, the way the code's readers do.
	return out
}

// stores resolves the texts stored into a local variable, wherever in its
// function the stores are: the variable may hold any of them.
func (r *resolver) stores(a *ssa.Alloc, depth int) alts {
	var out alts
	found := false
	for _, ref := range *a.Referrers() {
		if st, ok := ref.(*ssa.Store); ok && st.Addr == a {
			out = union(out, r.value(st.Val, depth+1))
			found = true
		}
	}
	if !found {
		if a.Comment != "" {
			return unknown("variable " + a.Comment + ", set through its address at run time")
		}
		return unknown("a variable set through its address at run time")
	}
	return out
}

// call resolves result index of a call: fmt.Sprintf, the modelled
// functions of strings, strconv and the builders, library calls that pass
// a query through, and functions of the package that return strings,
// resolved inline with their parameters bound to the call's arguments.
func (r *resolver) call(c *ssa.Call, index, depth int) alts {
	if index == 0 {
		if t, ok := r.library(c, depth); ok {
			return t
		}
		if t, ok := r.readFile(c, depth); ok {
			return t
		}
	}
	callee := c.Call.StaticCallee()
	if callee == nil {
		return unknown(describe(c))
	}
	if callee.Pkg != nil && callee.Signature.Recv() == nil && index == 0 {
		name := callee.Pkg.Pkg.Path() + "." + callee.Name()
		switch {
		case name == "fmt.Sprintf":
			return r.sprintf(c.Call.Args, depth)
		case name == "strings.Join":
			return r.join(c.Call.Args, depth)
		case stringsFuncs[callee.Pkg.Pkg.Name()+"."+callee.Name()] > 0 && (callee.Pkg.Pkg.Path() == "strings" || callee.Pkg.Pkg.Path() == "strconv"):
			return r.stringsCall(callee.Pkg.Pkg.Name()+"."+callee.Name(), c.Call.Args, depth)
		}
	}
	if index == 0 && callee.Signature.Recv() != nil && callee.Name() == "String" && len(c.Call.Args) == 1 {
		if pkg, name, ok := namedPath(callee.Signature.Recv().Type()); ok && (pkg == "strings" && name == "Builder" || pkg == "bytes" && name == "Buffer") {
			return r.builder(c.Call.Args[0], c, depth)
		}
	}
	if callee.Blocks == nil && index == 0 {
		if t, ok := r.external(c, callee, depth); ok {
			return t
		}
	}
	if callee.Blocks == nil || index >= callee.Signature.Results().Len() || !isString(callee.Signature.Results().At(index).Type()) {
		return unknown(describe(c))
	}
	if r.calls >= maxCalls {
		return unknown(describe(c) + ", through too many functions")
	}
	r.calls++
	defer func() { r.calls-- }()
	// Bind the callee's parameters (and a closure's free variables) to
	// the call's arguments, resolved here in the caller.
	env := map[ssa.Value]bound{}
	for i, p := range callee.Params {
		if i < len(c.Call.Args) {
			env[p] = bound{c.Call.Args[i], r.env}
		}
	}
	if mc, ok := c.Call.Value.(*ssa.MakeClosure); ok {
		for i, fv := range callee.FreeVars {
			if i < len(mc.Bindings) {
				env[fv] = bound{mc.Bindings[i], r.env}
			}
		}
	}
	outer := r.env
	r.env = env
	defer func() { r.env = outer }()
	var out alts
	found := false
	for _, b := range callee.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && index < len(ret.Results) {
			out = union(out, r.value(ret.Results[index], depth+1))
			found = true
		}
	}
	if !found {
		return unknown(describe(c))
	}
	return out
}

// sprintf formats a format with the arguments' alternatives, each
// combination an alternative (bounded by maxTexts). A format or argument
// that is a parameter of the function leaves a template its callers bind.
func (r *resolver) sprintf(args []ssa.Value, depth int) alts {
	if len(args) != 2 {
		return unknown("a call of fmt.Sprintf")
	}
	format := r.value(args[0], depth+1)
	if format.unknown {
		return unknown("the format of fmt.Sprintf is not constant: " + format.why)
	}
	elems, why := r.elemAlts(args[1], "fmt.Sprintf", depth)
	if why != "" {
		return unknown(why)
	}
	return formatAll(format.nodes, elems)
}

// formatAll builds the Sprintf of every format with every combination of
// arguments.
func formatAll(formats []Node, argCombos [][]Node) alts {
	var out alts
	for _, f := range formats {
		for _, c := range argCombos {
			if len(out.nodes) >= maxTexts {
				out.unknown, out.why = true, tooMany
				return out
			}
			n, why := fold(Node{Op: OpFormat, Args: append([]Node{f}, c...)})
			if why != "" {
				return unknown(why)
			}
			out.nodes = append(out.nodes, n)
		}
	}
	return out
}

// elemAlts resolves the elements of a variadic argument slice: every
// combination of their alternatives, or this function's own variadic
// parameter passed on. fn names the called function for the reason.
func (r *resolver) elemAlts(v ssa.Value, fn string, depth int) ([][]Node, string) {
	if p, ok := v.(*ssa.Parameter); ok {
		if b, ok := r.env[p]; ok {
			outer := r.env
			r.env = b.env
			defer func() { r.env = outer }()
			return r.elemAlts(b.v, fn, depth+1)
		}
		if i := paramIndex(p); i >= 0 && p.Parent() == r.top {
			return [][]Node{{{Op: OpParam, Param: i, Spread: true}}}, ""
		}
	}
	vals, ok := variadicElems(v)
	if !ok {
		vals, ok = r.sliceLiteral(v)
	}
	if !ok {
		if strs, ok := r.externalStrings(v); ok {
			elems := make([]Node, len(strs))
			for i, s := range strs {
				elems[i] = constNode(s)
			}
			return [][]Node{elems}, ""
		}
		return nil, "the arguments of " + fn + " are a slice built at run time"
	}
	combos := [][]Node{nil}
	for i, e := range vals {
		a := r.value(e, depth+1)
		if a.unknown {
			return nil, fmt.Sprintf("argument %d of %s is not constant: %s", i+2, fn, a.why)
		}
		var over bool
		if combos, over = cross(combos, singles(a.nodes)); over {
			return nil, tooMany
		}
	}
	return combos, ""
}

// join resolves strings.Join of a slice literal (or a package-level one)
// with a separator.
func (r *resolver) join(args []ssa.Value, depth int) alts {
	if len(args) != 2 {
		return unknown("a call of strings.Join")
	}
	sep := r.value(args[1], depth+1)
	if sep.unknown {
		return unknown("the separator of strings.Join is not constant: " + sep.why)
	}
	vals, ok := r.sliceLiteral(args[0])
	if !ok {
		// The elements a caller passes (conds ...string): joined where
		// it binds them.
		elems, why := r.elemAlts(args[0], "strings.Join", depth)
		if why != "" {
			return unknown("the elements of strings.Join are a slice built at run time")
		}
		var out alts
		for _, e := range elems {
			for _, s := range sep.nodes {
				n, why := fold(Node{Op: OpCall, Text: "strings.Join", Args: append(slices.Clone(e), s)})
				if why != "" {
					return unknown(why)
				}
				out.nodes = append(out.nodes, n)
			}
		}
		if len(out.nodes) > maxTexts {
			return unknown(tooMany)
		}
		return out
	}
	if len(vals) == 0 {
		return single(constNode(""))
	}
	out := r.value(vals[0], depth+1)
	for _, v := range vals[1:] {
		out = concat(concat(out, sep), r.value(v, depth+1))
	}
	if out.unknown {
		out.why = "an element of strings.Join is not constant: " + out.why
	}
	return out
}

// sliceLiteral returns the elements of a slice literal ([]string{a, b}),
// local or a package-level variable's initialiser.
func (r *resolver) sliceLiteral(v ssa.Value) ([]ssa.Value, bool) {
	for range 4 {
		switch x := v.(type) {
		case *ssa.Slice:
			if a, ok := x.X.(*ssa.Alloc); ok {
				return ArrayLiteral(a)
			}
			return nil, false
		case *ssa.UnOp:
			g, ok := x.X.(*ssa.Global)
			if !ok || x.Op != token.MUL || g.Pkg.Func("init") == nil {
				return nil, false
			}
			var val ssa.Value
			for _, b := range g.Pkg.Func("init").Blocks {
				for _, instr := range b.Instrs {
					if st, ok := instr.(*ssa.Store); ok && st.Addr == g {
						if val != nil {
							return nil, false
						}
						val = st.Val
					}
				}
			}
			if val == nil {
				return nil, false
			}
			v = val
		case *ssa.ChangeType:
			v = x.X
		default:
			return nil, false
		}
	}
	return nil, false
}

// stringsCall resolves a function of stringsFuncs: computed on constants,
// an OpCall node for its callers where an argument is a parameter.
func (r *resolver) stringsCall(fn string, args []ssa.Value, depth int) alts {
	combos := [][]Node{nil}
	for i, a := range args {
		x := r.value(a, depth+1)
		if x.unknown {
			return unknown(fmt.Sprintf("argument %d of %s is not constant: %s", i+1, fn, x.why))
		}
		var over bool
		if combos, over = cross(combos, singles(x.nodes)); over {
			return unknown(tooMany)
		}
	}
	var out alts
	for _, c := range combos {
		n, why := fold(Node{Op: OpCall, Text: fn, Args: c})
		if why != "" {
			return unknown(why)
		}
		out.nodes = append(out.nodes, n)
	}
	return out
}

// concat concatenates every alternative of a with every one of b.
func concat(a, b alts) alts {
	out := alts{unknown: a.unknown || b.unknown, why: firstWhy(a, b)}
	for _, x := range a.nodes {
		for _, y := range b.nodes {
			if len(out.nodes) >= maxTexts {
				out.unknown, out.why = true, tooMany
				return out
			}
			n, why := fold(Node{Op: OpConcat, Args: []Node{x, y}})
			if why == "" && n.size() > maxNodes {
				why = "the text is built by too many operations"
			}
			if why != "" {
				out.unknown, out.why = true, why
				continue
			}
			out.nodes = append(out.nodes, n)
		}
	}
	return out
}

func firstWhy(as ...alts) string {
	for _, a := range as {
		if a.why != "" {
			return a.why
		}
	}
	return ""
}

// union joins the alternatives of a and b.
func union(a, b alts) alts {
	out := alts{unknown: a.unknown || b.unknown, why: firstWhy(a, b), seq: a.seq && len(b.nodes) == 0 || b.seq && len(a.nodes) == 0}
	out.nodes = append(append(out.nodes, a.nodes...), b.nodes...)
	if len(out.nodes) > maxTexts {
		// The alternatives past the bound are possible queries the
		// analysis does not see: say so.
		out.nodes = out.nodes[:maxTexts]
		out.unknown = true
		if out.why == "" {
			out.why = tooMany
		}
	}
	return out
}

func dedupe(ss []string) []string {
	if len(ss) < 2 {
		return ss
	}
	sort.Strings(ss)
	out := ss[:1]
	for _, s := range ss[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

// listElem resolves an element of a constant list of statements
// ([]string{"LOCK a ...", "LOCK b ..."}): the element itself for a constant
// index, and for an index that varies (a loop over the list) every element,
// as a sequence in list order.
func (r *resolver) listElem(ia *ssa.IndexAddr, depth int) (alts, bool) {
	base := ia.X
	if s, ok := base.(*ssa.Slice); ok {
		base = s.X
	}
	arr, ok := base.(*ssa.Alloc)
	if !ok {
		return alts{}, false
	}
	vals, ok := ArrayLiteral(arr)
	if !ok || len(vals) == 0 {
		return alts{}, false
	}
	elems := make([]Node, len(vals))
	for i, v := range vals {
		t := r.value(v, depth+1)
		if len(t.nodes) != 1 || t.unknown || !t.nodes[0].isString() {
			return alts{}, false
		}
		elems[i] = t.nodes[0]
	}
	if c, ok := ia.Index.(*ssa.Const); ok {
		if n := c.Int64(); n >= 0 && n < int64(len(elems)) {
			return single(elems[n]), true
		}
		return alts{}, false
	}
	return alts{nodes: elems, seq: true}, true
}

// constText returns the one constant text of a value, if it has one.
func constText(v ssa.Value) (string, bool) {
	t := Resolve(v)
	if t.Unknown || len(t.SQL) != 1 || len(t.Params) > 0 || len(t.Templates) > 0 {
		return "", false
	}
	return t.SQL[0], true
}

// VariadicElems returns the elements stored into the slice that SSA builds
// for a variadic call's "..." parameter, in order. It reports false when v is
// not such a slice literal (a slice passed with "xs...", say).
func VariadicElems(v ssa.Value) ([]ssa.Value, bool) { return variadicElems(v) }

func variadicElems(v ssa.Value) ([]ssa.Value, bool) {
	if c, ok := v.(*ssa.Const); ok && c.IsNil() {
		return nil, true
	}
	if in := sqlxInCall(v); in != nil {
		// query, args, err := sqlx.In(q, a, b, ids): args are In's own
		// arguments, a slice spread into the markers of its IN (?),
		// which the text keeps as one marker: the $n of the text are
		// In's arguments, one for one.
		return variadicElems(in.Call.Args[1])
	}
	sl, ok := v.(*ssa.Slice)
	if !ok {
		return nil, false
	}
	alloc, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return nil, false
	}
	arr, ok := alloc.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
	if !ok {
		return nil, false
	}
	elems := make([]ssa.Value, arr.Len())
	for _, ref := range *alloc.Referrers() {
		ia, ok := ref.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		idx, ok := ia.Index.(*ssa.Const)
		if !ok {
			continue
		}
		i, _ := constant.Int64Val(idx.Value)
		for _, r2 := range *ia.Referrers() {
			if st, ok := r2.(*ssa.Store); ok && st.Addr == ia && int(i) < len(elems) {
				elems[i] = st.Val
			}
		}
	}
	for _, e := range elems {
		if e == nil {
			return nil, false
		}
	}
	return elems, true
}

func paramIndex(p *ssa.Parameter) int {
	fn := p.Parent()
	if fn == nil {
		return -1
	}
	for i, q := range fn.Params {
		if q == p {
			return i
		}
	}
	return -1
}

// ArrayLiteral returns the values a function stores into the elements of a
// local array, by index: the backing array of a slice literal
// ([]string{a, b}). ok is false when a is no array, when an element is
// stored at an index that is not a constant, or when one is missing.
func ArrayLiteral(a *ssa.Alloc) ([]ssa.Value, bool) {
	at, ok := a.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil, false
	}
	if _, ok := at.Elem().Underlying().(*types.Array); !ok {
		return nil, false
	}
	byIndex := map[int64]ssa.Value{}
	for _, ref := range *a.Referrers() {
		e, ok := ref.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		for _, u := range *e.Referrers() {
			st, ok := u.(*ssa.Store)
			if !ok || st.Addr != e {
				continue
			}
			c, ok := e.Index.(*ssa.Const)
			if !ok {
				return nil, false // filled by a loop, not a literal
			}
			byIndex[c.Int64()] = st.Val
		}
	}
	out := make([]ssa.Value, len(byIndex))
	for i := range out {
		v, ok := byIndex[int64(i)]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// external resolves a call of another package's function from what ext
// knows of the text it returns: its templates, bound to the call's
// arguments resolved here.
func (r *resolver) external(c *ssa.Call, callee *ssa.Function, depth int) (alts, bool) {
	if r.ext == nil || r.ext.Text == nil {
		return alts{}, false
	}
	obj, ok := callee.Object().(*types.Func)
	if !ok {
		return alts{}, false
	}
	ts := r.ext.Text(obj)
	if len(ts) == 0 {
		return alts{}, false
	}
	args := c.Call.Args
	var out alts
	for _, t := range ts {
		nodes, why := subst(t.Root, func(p, field int, spread bool) ([][]Node, string) {
			if p < 0 || p >= len(args) {
				return nil, fmt.Sprintf("parameter %d of %s is not passed", p, t.Func)
			}
			if spread {
				return r.elemAlts(args[p], t.Func, depth+1)
			}
			var a alts
			if field > 0 {
				a = r.fieldValue(args[p], field-1, depth+1)
			} else {
				a = r.value(args[p], depth+1)
			}
			if a.unknown {
				return nil, fmt.Sprintf("parameter %d of %s is %s", p, t.Func, a.why)
			}
			return singles(a.nodes), ""
		})
		if why != "" {
			return unknown(why), true
		}
		out = union(out, alts{nodes: nodes})
	}
	return out, true
}

// externalStrings returns the elements of another package's []string
// variable that v loads, as ext knows them.
func (r *resolver) externalStrings(v ssa.Value) ([]string, bool) {
	if r.ext == nil || r.ext.Strings == nil {
		return nil, false
	}
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return nil, false
	}
	g, ok := u.X.(*ssa.Global)
	if !ok {
		return nil, false
	}
	obj, ok := g.Object().(*types.Var)
	if !ok {
		return nil, false
	}
	return r.ext.Strings(obj)
}

// GlobalStrings returns the constant elements a package-level []string
// variable of this package is initialised with (var Columns = []string{"id",
// "name"}), for the packages that use it.
func GlobalStrings(g *ssa.Global) ([]string, bool) {
	r := resolver{seen: map[ssa.Value]bool{}}
	load := &ssa.UnOp{Op: token.MUL, X: g}
	vals, ok := r.sliceLiteral(load)
	if !ok {
		return nil, false
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		a := r.value(v, 0)
		if a.unknown || len(a.nodes) != 1 || !a.nodes[0].isString() {
			return nil, false
		}
		out[i] = a.nodes[0].Text
	}
	return out, true
}

// sqlxInCall returns the call of sqlx.In whose second result (the
// arguments) v is, or nil.
func sqlxInCall(v ssa.Value) *ssa.Call {
	ex, ok := v.(*ssa.Extract)
	if !ok || ex.Index != 1 {
		return nil
	}
	c, ok := ex.Tuple.(*ssa.Call)
	if !ok || len(c.Call.Args) != 2 {
		return nil
	}
	fn := c.Call.StaticCallee()
	if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg.Path() != pkgSqlx || fn.Name() != "In" {
		return nil
	}
	return c
}
