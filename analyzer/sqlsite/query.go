package sqlsite

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// maxTexts bounds the number of alternative query texts kept for one value,
// so that a long chain of branches cannot blow up the analysis.
const maxTexts = 32

// maxDepth bounds how far resolution follows calls and definitions.
const maxDepth = 8

// Text is what is known about the SQL text a string value can hold.
type Text struct {
	// SQL lists the possible constant texts, sorted and without repeats.
	SQL []string
	// Params lists the indexes of the enclosing function's parameters
	// (free variables of a closure follow its parameters) that the text
	// may come from unchanged: the function is then itself a SQL sink
	// for its callers.
	Params []int
	// Unknown is set when some alternative could not be resolved (it came
	// from a run-time value).
	Unknown bool
	// Seq is set when the texts are not alternatives but a sequence that
	// runs in the order of SQL: the statements of a constant list, one per
	// iteration of a loop over it.
	Seq bool
}

// Resolve returns the possible texts of the string value v. It follows
// constants (including other packages' constants, which SSA inlines),
// string concatenation, φ-nodes (each alternative is a possible query),
// fmt.Sprintf with a constant format and resolvable arguments, conversions,
// package-level variables initialised with constants in the same package, and
// functions of the same package that return constant strings.
func Resolve(v ssa.Value) Text {
	r := resolver{seen: map[ssa.Value]bool{}}
	t := r.resolve(v, 0)
	if !t.Seq {
		t.SQL = dedupe(t.SQL)
	}
	sort.Ints(t.Params)
	return t
}

type resolver struct {
	seen map[ssa.Value]bool
	// env binds the parameters of the function whose result is being
	// resolved (a query builder such as lockQuery(table string)) to what
	// the call site passes.
	env map[*ssa.Parameter]Text
}

func (r *resolver) resolve(v ssa.Value, depth int) Text {
	if depth > maxDepth || r.seen[v] {
		return Text{Unknown: true}
	}
	r.seen[v] = true
	defer delete(r.seen, v)

	switch v := v.(type) {
	case *ssa.Const:
		if v.Value != nil && v.Value.Kind() == constant.String {
			return Text{SQL: []string{constant.StringVal(v.Value)}}
		}
	case *ssa.Parameter:
		if t, ok := r.env[v]; ok {
			return t
		}
		if i := paramIndex(v); i >= 0 {
			return Text{Params: []int{i}}
		}
	case *ssa.FreeVar:
		if fn := v.Parent(); fn != nil {
			for i, fv := range fn.FreeVars {
				if fv == v {
					return Text{Params: []int{len(fn.Params) + i}}
				}
			}
		}
	case *ssa.BinOp:
		if v.Op == token.ADD {
			return concat(r.resolve(v.X, depth+1), r.resolve(v.Y, depth+1))
		}
	case *ssa.Phi:
		var out Text
		for _, e := range v.Edges {
			out = union(out, r.resolve(e, depth+1))
		}
		return out
	case *ssa.ChangeType:
		return r.resolve(v.X, depth+1)
	case *ssa.Convert:
		if isString(v.X.Type()) {
			return r.resolve(v.X, depth+1)
		}
	case *ssa.MakeInterface:
		return r.resolve(v.X, depth+1)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			switch x := v.X.(type) {
			case *ssa.Global:
				return r.global(x, depth)
			case *ssa.Alloc:
				return r.resolve(x, depth+1)
			case *ssa.FreeVar:
				// A variable a closure captures by reference: the
				// caller's binding is its address, resolved there.
				return r.resolve(x, depth+1)
			case *ssa.IndexAddr:
				if t, ok := r.listElem(x, depth); ok {
					return t
				}
			}
		}
	case *ssa.Alloc:
		// The address of a local variable (one a closure captures, say):
		// any text stored into it.
		return r.stores(v, depth)
	case *ssa.Call:
		return r.call(v, depth)
	case *ssa.Extract:
		// sql, args, err := q.ToSql(); q, args, err := sqlx.In(q, ids)
		if c, ok := v.Tuple.(*ssa.Call); ok && v.Index == 0 {
			if t, ok := r.library(c, depth); ok {
				return t
			}
		}
	}
	return Text{Unknown: true}
}

// global resolves a package-level string variable from the stores to it in
// its package's init function.
func (r *resolver) global(g *ssa.Global, depth int) Text {
	init := g.Pkg.Func("init")
	if init == nil {
		return Text{Unknown: true}
	}
	var out Text
	found := false
	for _, b := range init.Blocks {
		for _, instr := range b.Instrs {
			if st, ok := instr.(*ssa.Store); ok && st.Addr == g {
				out = union(out, r.resolve(st.Val, depth+1))
				found = true
			}
		}
	}
	if !found {
		if text, ok := embedText(g); ok {
			return Text{SQL: []string{text}}
		}
		return Text{Unknown: true}
	}
	// A variable can be reassigned anywhere; only an unexported one
	// that nobody else stores to is really known. Keep it simple: trust
	// the initialiser, the way the code's readers do.
	return out
}

// stores resolves the texts stored into a local variable, wherever in its
// function the stores are: the variable may hold any of them.
func (r *resolver) stores(a *ssa.Alloc, depth int) Text {
	var out Text
	found := false
	for _, ref := range *a.Referrers() {
		if st, ok := ref.(*ssa.Store); ok && st.Addr == a {
			out = union(out, r.resolve(st.Val, depth+1))
			found = true
		}
	}
	if !found {
		return Text{Unknown: true}
	}
	return out
}

// call resolves fmt.Sprintf and same-package functions returning strings.
func (r *resolver) call(c *ssa.Call, depth int) Text {
	callee := c.Call.StaticCallee()
	if callee == nil {
		if t, ok := r.library(c, depth); ok {
			return t // a library method called through an interface
		}
		return Text{Unknown: true}
	}
	if callee.Pkg != nil && callee.Pkg.Pkg.Path() == "fmt" && callee.Name() == "Sprintf" {
		return r.sprintf(c.Call.Args, depth)
	}
	if t, ok := r.library(c, depth); ok {
		return t
	}
	if callee.Blocks == nil || callee.Signature.Results().Len() != 1 || !isString(callee.Signature.Results().At(0).Type()) {
		return Text{Unknown: true}
	}
	// Bind the callee's string parameters to the texts of the arguments,
	// resolved here in the caller; other parameters stay unknown.
	env := map[*ssa.Parameter]Text{}
	for i, p := range callee.Params {
		if i < len(c.Call.Args) && isString(p.Type()) {
			env[p] = r.resolve(c.Call.Args[i], depth+1)
		} else {
			env[p] = Text{Unknown: true}
		}
	}
	outer := r.env
	r.env = env
	defer func() { r.env = outer }()
	var out Text
	for _, b := range callee.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) == 1 {
			out = union(out, r.resolve(ret.Results[0], depth+1))
		}
	}
	return out
}

// sprintf formats a constant format with resolvable arguments, trying every
// combination of alternatives (bounded by maxTexts).
func (r *resolver) sprintf(args []ssa.Value, depth int) Text {
	if len(args) != 2 {
		return Text{Unknown: true}
	}
	format := r.resolve(args[0], depth+1)
	if format.Unknown || len(format.Params) > 0 || len(format.SQL) == 0 {
		return Text{Unknown: true}
	}
	elems, ok := variadicElems(args[1])
	if !ok {
		return Text{Unknown: true}
	}
	combos := [][]any{nil}
	for _, e := range elems {
		alts, ok := r.constAlternatives(e, depth)
		if !ok {
			return Text{Unknown: true}
		}
		var next [][]any
		for _, c := range combos {
			for _, a := range alts {
				if len(next) >= maxTexts {
					break
				}
				next = append(next, append(append([]any(nil), c...), a))
			}
		}
		combos = next
	}
	var out Text
	for _, f := range format.SQL {
		for _, c := range combos {
			if len(out.SQL) >= maxTexts {
				return out
			}
			out.SQL = append(out.SQL, fmt.Sprintf(f, c...))
		}
	}
	return out
}

// constAlternatives returns the possible constant values of a Sprintf
// argument.
func (r *resolver) constAlternatives(v ssa.Value, depth int) ([]any, bool) {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	if c, ok := v.(*ssa.Const); ok && c.Value != nil {
		switch c.Value.Kind() {
		case constant.String:
			return []any{constant.StringVal(c.Value)}, true
		case constant.Int:
			if i, exact := constant.Int64Val(c.Value); exact {
				return []any{i}, true
			}
		case constant.Bool:
			return []any{constant.BoolVal(c.Value)}, true
		case constant.Float:
			f, _ := constant.Float64Val(c.Value)
			return []any{f}, true
		}
		return nil, false
	}
	if !isString(v.Type()) {
		return nil, false
	}
	t := r.resolve(v, depth+1)
	if t.Unknown || len(t.Params) > 0 || len(t.SQL) == 0 {
		return nil, false
	}
	alts := make([]any, len(t.SQL))
	for i, s := range t.SQL {
		alts[i] = s
	}
	return alts, true
}

// VariadicElems returns the elements stored into the slice that SSA builds
// for a variadic call's "..." parameter, in order. It reports false when v is
// not such a slice literal (a slice passed with "xs...", say).
func VariadicElems(v ssa.Value) ([]ssa.Value, bool) { return variadicElems(v) }

func variadicElems(v ssa.Value) ([]ssa.Value, bool) {
	if c, ok := v.(*ssa.Const); ok && c.IsNil() {
		return nil, true
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

func concat(a, b Text) Text {
	out := Text{Unknown: a.Unknown || b.Unknown}
	// A parameter concatenated with anything else is no longer the
	// parameter unchanged: the wrapper does not just pass it through.
	if len(a.Params) > 0 || len(b.Params) > 0 {
		out.Unknown = true
	}
	for _, x := range a.SQL {
		for _, y := range b.SQL {
			if len(out.SQL) >= maxTexts {
				return out
			}
			out.SQL = append(out.SQL, x+y)
		}
	}
	if (len(a.SQL) == 0 || len(b.SQL) == 0) && !out.Unknown {
		out.Unknown = true
	}
	return out
}

func union(a, b Text) Text {
	out := Text{Unknown: a.Unknown || b.Unknown}
	out.SQL = append(append(out.SQL, a.SQL...), b.SQL...)
	if len(out.SQL) > maxTexts {
		// The alternatives past the bound are possible queries the
		// analysis does not see: say so.
		out.SQL = out.SQL[:maxTexts]
		out.Unknown = true
	}
	out.Params = append(append(out.Params, a.Params...), b.Params...)
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
func (r *resolver) listElem(ia *ssa.IndexAddr, depth int) (Text, bool) {
	base := ia.X
	if s, ok := base.(*ssa.Slice); ok {
		base = s.X
	}
	arr, ok := base.(*ssa.Alloc)
	if !ok {
		return Text{}, false
	}
	vals, ok := ArrayLiteral(arr)
	if !ok || len(vals) == 0 {
		return Text{}, false
	}
	elems := make([]string, len(vals))
	for i, v := range vals {
		t := r.resolve(v, depth+1)
		if len(t.SQL) != 1 || t.Unknown || len(t.Params) > 0 {
			return Text{}, false
		}
		elems[i] = t.SQL[0]
	}
	if c, ok := ia.Index.(*ssa.Const); ok {
		if n := c.Int64(); n >= 0 && n < int64(len(elems)) {
			return Text{SQL: []string{elems[n]}}, true
		}
		return Text{}, false
	}
	return Text{SQL: elems, Seq: true}, true
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
