package lockseq

import (
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// Advisory keys and their classes.
//
// A key part is a constant ("42"), a parameter of the function ("?p2",
// bound by each caller: one class per constant reaching it), or a value
// known only at run time. PostgreSQL sees only the key's value, so two
// sites that may compute the same value take the same lock: a run-time
// part is named by its shape, what the program feeds it, "<accountid>" for
// an accountID parameter, an Account's ID field or a value of a named type
// AccountID, and "<?>" when nothing names it. pg_advisory_lock($1) fed an
// accountID in one function and pg_advisory_xact_lock($1) fed an
// account.ID in another are then one class, (<accountid>), and so are the
// keys of one namespace, (42, <?>), or of one hashtext prefix,
// hashtext('job:' || <?>). A key with no constant and nothing that names
// it stays the class of its SQL site, equal to no other.

// unnamed is the shape of a run-time key part nothing names.
const unnamed = "<?>"

// advisoryClass names the class of an advisory lock from its key parts
// (constants in the SQL, or the Go values bound to its $n parameters).
func (fa *fnAnalysis) advisoryClass(l lockmodel.Lock, keys []ssa.Value, site ssa.Instruction) lockgraph.Class {
	arg := func(n int) string {
		if n < 1 || n > len(keys) {
			return unnamed
		}
		return fa.keyText(keys[n-1])
	}
	parts := make([]string, 0, len(l.Key.Parts))
	for _, p := range l.Key.Parts {
		switch {
		case p.Known():
			parts = append(parts, p.Const)
		case p.Param > 0:
			parts = append(parts, arg(p.Param))
		case p.Template != "":
			t, _ := bindTemplate(p.Template, func(n int) (string, bool) { return arg(n), true })
			parts = append(parts, t)
		default:
			parts = append(parts, unnamed)
		}
	}
	return fa.keyClass("("+strings.Join(parts, ", ")+")", fa.classSite(site.Pos()))
}

// keyClass returns the class of key, taken at site: parametric when it has
// placeholders (falling back to its shape with this function's parameter
// names), the site's own when nothing in it is known.
func (fa *fnAnalysis) keyClass(key, site string) lockgraph.Class {
	if !knownPart(key) {
		return lockgraph.AdvisoryAt(site)
	}
	if strings.Contains(key, "?p") {
		shape, _ := substitute(key, "?p", func(n int) (string, bool) { return fa.paramShape(n), true })
		if !knownPart(shape) {
			shape = ""
		}
		return lockgraph.AdvisoryParam(key, site, shape)
	}
	return lockgraph.AdvisoryOf(key, "")
}

// placeholderPart matches what a key's text has that is not a known part:
// run-time shapes that name nothing, and punctuation.
var placeholderPart = regexp.MustCompile(`<\?>|[(), ]`)

// knownPart reports whether a key has anything that tells it from another
// run-time key: a constant, a parameter, a named shape.
func knownPart(key string) bool {
	return placeholderPart.ReplaceAllString(key, "") != ""
}

// paramShape returns the shape of this function's parameter n (closure free
// variables numbered after the parameters).
func (fa *fnAnalysis) paramShape(n int) string {
	var v ssa.Value
	switch {
	case n < len(fa.fn.Params):
		v = fa.fn.Params[n]
	case n-len(fa.fn.Params) < len(fa.fn.FreeVars):
		v = fa.fn.FreeVars[n-len(fa.fn.Params)]
	default:
		return unnamed
	}
	if name := keyName(v); name != "" {
		return "<" + name + ">"
	}
	return unnamed
}

// keyText is the text of a Go value bound to an advisory key part: a
// constant's text; "?pN" when it is the function's parameter N (free
// variables of a closure numbered after the parameters), which each caller
// substitutes (see bindClass); else the value's shape.
func (fa *fnAnalysis) keyText(v ssa.Value) string {
	if c := goConst(v); c != "" {
		return c
	}
	switch x := stripConversions(v).(type) {
	case *ssa.Parameter:
		if i := slices.Index(fa.fn.Params, x); i >= 0 {
			return "?p" + strconv.Itoa(i)
		}
	case *ssa.FreeVar:
		if i := slices.Index(fa.fn.FreeVars, x); i >= 0 {
			return "?p" + strconv.Itoa(len(fa.fn.Params)+i)
		}
	case *ssa.UnOp:
		// A variable captured by reference, read in the closure.
		if fv, ok := x.X.(*ssa.FreeVar); ok && x.Op == token.MUL {
			return fa.keyText(fv)
		}
		if a, ok := x.X.(*ssa.Alloc); ok && x.Op == token.MUL {
			return fa.keyText(a)
		}
	case *ssa.Alloc:
		// The address of a variable a closure captures: its one value.
		if st := onlyStore(x, nil); st != nil {
			return fa.keyText(st.Val)
		}
	}
	if name := keyName(v); name != "" {
		return "<" + name + ">"
	}
	return unnamed
}

// keyName names what a run-time key value is the key of, normalised (lower
// case, no underscores) so that accountID, account_id and an Account's ID
// agree: a named type of its own (type JobID int64), a parameter or
// variable's name, a struct field (ID of an Account is "accountid"). It
// returns "" when nothing names the value.
func keyName(v ssa.Value) string {
	v = stripConversions(v)
	if n, ok := types.Unalias(v.Type()).(*types.Named); ok && n.Obj().Pkg() != nil {
		if _, basic := n.Underlying().(*types.Basic); basic {
			return normalName(n.Obj().Name())
		}
	}
	switch x := v.(type) {
	case *ssa.Call:
		return callKeyName(x)
	case *ssa.Parameter:
		return normalName(x.Name())
	case *ssa.FreeVar:
		return normalName(x.Name())
	case *ssa.Global:
		return normalName(x.Name())
	case *ssa.Field:
		return fieldKeyName(x.X.Type(), x.Field)
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return ""
		}
		switch a := x.X.(type) {
		case *ssa.FieldAddr:
			return fieldKeyName(a.X.Type(), a.Field)
		case *ssa.FreeVar, *ssa.Global:
			return keyName(a)
		case *ssa.Alloc:
			if st := onlyStore(a, nil); st != nil {
				return keyName(st.Val)
			}
		}
	}
	return ""
}

// callKeyName names a key a function computes (lockKey("account", id)):
// the function and its constant arguments, the others left out, so that
// every call of lockKey("account", ...) is one shape whatever id it is fed.
// A call with no constant argument names nothing.
func callKeyName(c *ssa.Call) string {
	callee := c.Call.StaticCallee()
	if callee == nil || callee.Object() == nil || callee.Object().Pkg() == nil || standard(callee.Object().Pkg().Path()) {
		return "" // strconv.FormatInt(id, 10) formats, it names no key
	}
	var consts []string
	for _, a := range c.Call.Args {
		if k := goConst(a); k != "" {
			consts = append(consts, k)
		}
	}
	if len(consts) == 0 {
		return ""
	}
	return strings.ToLower(callee.Object().Name()) + "(" + strings.Join(consts, ",") + ")"
}

// fieldKeyName names field i of struct type t: its name, prefixed by the
// struct type's name when it is a bare ID.
func fieldKeyName(t types.Type, i int) string {
	f := strings.ToLower(fieldName(t, i))
	if f != "id" {
		return normalName(f)
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return normalName(n.Obj().Name()) + f
	}
	return f
}

// genericNames name a key without saying what it is the key of: locks
// keyed by an "id" or a "key" parameter are not one class.
var genericNames = map[string]bool{
	"key": true, "keys": true, "lockid": true, "lockkey": true, "advisorykey": true, "value": true, "val": true,
	"num": true, "arg": true, "param": true, "hash": true, "int": true, "int64": true,
}

// normalName lower-cases a name and drops its underscores. Names that say
// nothing of what they are the key of, the blank one, a letter or two,
// "key", name nothing ("").
func normalName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r != '_' {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	n := b.String()
	if len(n) < 3 || genericNames[n] {
		return ""
	}
	return n
}

// bindClass substitutes, at a call site, the values passed for the
// placeholders of a parametric class. vals are the callee's parameter values
// there: a constant, this function's own parameter (the class stays
// parametric), or a run-time value, named by its shape.
func (fa *fnAnalysis) bindClass(class lockgraph.Class, vals []ssa.Value) lockgraph.Class {
	if !class.Parametric() {
		return class
	}
	names := placeholderShapes(class.Name, class.Shape)
	bound, _ := substitute(class.Name, "?p", func(n int) (string, bool) {
		t := unnamed
		if n < len(vals) && vals[n] != nil {
			t = fa.keyText(vals[n])
		}
		if strings.HasPrefix(t, "<") && names[n] != "" {
			// A run-time value: the name the callee gives its key
			// says what it is the key of better than where the
			// caller got it (an id parsed from a request).
			t = names[n]
		}
		return t, true
	})
	return fa.keyClass(bound, class.Site)
}

// placeholderShapes pairs the placeholders of a parametric key with the
// shapes its fallback shape gives them: key "(7, ?p2)" and shape
// "(7, <invoiceid>)" give {2: "<invoiceid>"}. The two texts are the same
// but for the placeholders, each replaced by one <...> in the shape.
func placeholderShapes(key, shape string) map[int]string {
	out := map[int]string{}
	i, j := 0, 0
	for i < len(key) && j < len(shape) {
		if strings.HasPrefix(key[i:], "?p") {
			k := i + 2
			for k < len(key) && key[k] >= '0' && key[k] <= '9' {
				k++
			}
			n, err := strconv.Atoi(key[i+2 : k])
			end := strings.IndexByte(shape[j:], '>')
			if err != nil || shape[j] != '<' || end < 0 {
				return out
			}
			out[n] = shape[j : j+end+1]
			i, j = k, j+end+1
			continue
		}
		if key[i] != shape[j] {
			return out
		}
		i++
		j++
	}
	return out
}
