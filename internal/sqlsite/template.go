package sqlsite

import (
	"fmt"
	"go/constant"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A Template is query text that a function builds from constants and the
// values of its own parameters: "SELECT id FROM " + table + " FOR UPDATE",
// fmt.Sprintf(format, args...), the embedded file "sql/" + name + ".sql".
// The function is then a SQL sink for its callers, and each call site binds
// the parameters to what it passes there (Bind): one text, and one set of
// locks, per constant reaching the helper, never a union over its callers.
//
// Templates travel in summaries (analysis facts), so they are plain data.
type Template struct {
	Root Node
	// Func names the function that builds the text ("store.lockRow"), and
	// Names its parameters (free variables of a closure follow them), for
	// the reason given when a call site cannot bind one.
	Func  string
	Names []string
}

// NodeOp is the operation of a Node.
type NodeOp uint8

// The operations of a Template's nodes.
const (
	// OpConst is a constant: Text, of kind Kind.
	OpConst NodeOp = iota
	// OpParam is the value of the function's parameter Param; with Spread,
	// every element of that slice parameter, as arguments of the enclosing
	// OpFormat (fmt.Sprintf(format, args...)) or OpCall (strings.Join).
	OpParam
	// OpConcat concatenates Args.
	OpConcat
	// OpFormat is fmt.Sprintf(Args[0], Args[1:]...).
	OpFormat
	// OpFile is the text of the embedded file whose name is Args[0]: Files
	// holds the candidate files' texts by name, read where the embed.FS is
	// declared. It also stands for an entry of a package map of constant
	// queries, Files then holding the entries by key.
	OpFile
	// OpCall applies the strings (or strconv) function named by Text to
	// Args.
	OpCall
)

// ConstKind is the kind of an OpConst node's value.
type ConstKind uint8

// The kinds of constants a template holds.
const (
	KindString ConstKind = iota
	KindInt
	KindFloat
	KindBool
)

// Node is one operation of a Template.
type Node struct {
	Op NodeOp
	// Text is an OpConst's value (a number's or bool's as Go prints it)
	// and an OpCall's function ("strings.TrimSpace").
	Text string
	Kind ConstKind // of an OpConst
	// Param is an OpParam's parameter; Spread says it stands for the
	// elements of that variadic parameter.
	Param  int
	Spread bool
	// Field, for an OpParam, is 1 + the index of the field of the
	// parameter (a struct, or a pointer to one) whose value this is: a
	// repository's r.table, which each call binds from the receiver it
	// passes. 0 is the parameter itself.
	Field int
	Args  []Node // the operands of OpConcat, OpFormat, OpFile and OpCall
	Files []File // OpFile's candidate files
}

// File is an embedded file a name may pick: a slice sorted by Name rather
// than a map, so that a summary encodes the same way every time.
type File struct {
	Name, Text string
}

// Limits of templates: a text built by a recursive helper or a long loop of
// concatenations is not followed past them.
const (
	maxNodes    = 64      // nodes in one template
	maxFiles    = 64      // candidate files of one embed.FS read
	maxFileSize = 1 << 20 // bytes of one embedded file
	// maxFilesSize bounds the bytes of the candidate files a template
	// carries: summaries (facts) copy them at every helper level.
	maxFilesSize = 256 << 10
)

func constNode(s string) Node { return Node{Op: OpConst, Text: s} }

func paramNode(i int) Node { return Node{Op: OpParam, Param: i} }

// isString reports whether n is a string constant.
func (n Node) isString() bool { return n.Op == OpConst && n.Kind == KindString }

// isConst reports whether n is a constant of any kind.
func (n Node) isConst() bool { return n.Op == OpConst }

// size counts the nodes of n.
func (n Node) size() int {
	s := 1
	for _, a := range n.Args {
		s += a.size()
	}
	return s
}

// value is the Go value of a constant node, as fmt formats it.
func (n Node) value() any {
	switch n.Kind {
	case KindInt:
		if i, err := strconv.ParseInt(n.Text, 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(n.Text, 10, 64); err == nil {
			return u
		}
	case KindFloat:
		if f, err := strconv.ParseFloat(n.Text, 64); err == nil {
			return f
		}
	case KindBool:
		return n.Text == "true"
	}
	return n.Text
}

// String renders a node compactly: "'SELECT ' + p0", "sprintf(p1, p2...)".
func (n Node) String() string {
	args := func() string {
		parts := make([]string, len(n.Args))
		for i, a := range n.Args {
			parts[i] = a.String()
		}
		return strings.Join(parts, ", ")
	}
	switch n.Op {
	case OpConst:
		if n.Kind == KindString {
			return strconv.Quote(n.Text)
		}
		return n.Text
	case OpParam:
		s := "p" + strconv.Itoa(n.Param)
		if n.Field > 0 {
			s += ".f" + strconv.Itoa(n.Field-1)
		}
		if n.Spread {
			s += "..."
		}
		return s
	case OpConcat:
		parts := make([]string, len(n.Args))
		for i, a := range n.Args {
			parts[i] = a.String()
		}
		return strings.Join(parts, " + ")
	case OpFormat:
		return "sprintf(" + args() + ")"
	case OpFile:
		return "file(" + args() + ")"
	case OpCall:
		return n.Text + "(" + args() + ")"
	}
	return "?"
}

// String renders the template, as summaries print it.
func (t Template) String() string { return t.Root.String() }

// constValue returns the node of a Go constant, or false for nil and
// complex constants. A constant of a type with its own String method is its
// value here: where fmt formats it, it is boxed in an interface first, which
// the resolver refuses (see MakeInterface in value).
func constValue(c *ssa.Const) (Node, bool) {
	if c.Value == nil {
		return Node{}, false
	}
	switch c.Value.Kind() {
	case constant.String:
		return constNode(constant.StringVal(c.Value)), true
	case constant.Int:
		return Node{Op: OpConst, Kind: KindInt, Text: c.Value.ExactString()}, true
	case constant.Float:
		f, _ := constant.Float64Val(c.Value)
		return Node{Op: OpConst, Kind: KindFloat, Text: strconv.FormatFloat(f, 'g', -1, 64)}, true
	case constant.Bool:
		return Node{Op: OpConst, Kind: KindBool, Text: strconv.FormatBool(constant.BoolVal(c.Value))}, true
	}
	return Node{}, false
}

// fold evaluates the operations of n whose operands are all constants. It
// fails, with the reason, when an operation cannot give a text (an embedded
// file that does not exist).
func fold(n Node) (Node, string) {
	if len(n.Args) == 0 && n.Op != OpConcat && n.Op != OpFormat {
		return n, ""
	}
	args := make([]Node, 0, len(n.Args))
	for _, a := range n.Args {
		f, why := fold(a)
		if why != "" {
			return Node{}, why
		}
		args = append(args, f)
	}
	n.Args = args
	consts := !slices.ContainsFunc(args, func(a Node) bool { return !a.isConst() })
	switch n.Op {
	case OpConcat:
		// Merge neighbouring strings; a constant of another kind is
		// never concatenated in Go.
		var out []Node
		for _, a := range args {
			if k := len(out) - 1; k >= 0 && a.isString() && out[k].isString() {
				out[k].Text += a.Text
				continue
			}
			if a.Op == OpConcat {
				out = append(out, a.Args...)
				continue
			}
			out = append(out, a)
		}
		switch len(out) {
		case 0:
			return constNode(""), ""
		case 1:
			return out[0], ""
		}
		n.Args = out
		return n, ""
	case OpFormat:
		if !consts || len(args) == 0 || !args[0].isString() {
			return n, ""
		}
		vals := make([]any, len(args)-1)
		for i, a := range args[1:] {
			vals[i] = a.value()
		}
		return constNode(fmt.Sprintf(args[0].Text, vals...)), ""
	case OpFile:
		if !consts || len(args) != 1 {
			return n, ""
		}
		i, ok := slices.BinarySearchFunc(n.Files, args[0].Text, func(f File, name string) int { return strings.Compare(f.Name, name) })
		if !ok {
			return Node{}, fmt.Sprintf("no embedded file %q", args[0].Text)
		}
		return constNode(n.Files[i].Text), ""
	case OpCall:
		if !consts {
			return n, ""
		}
		if s, ok := applyStrings(n.Text, args); ok {
			return constNode(s), ""
		}
		return Node{}, "cannot evaluate " + n.Text
	}
	return n, ""
}

// stringsFuncs are the pure functions of the strings and strconv packages
// whose results the resolver computes, with their number of arguments.
var stringsFuncs = map[string]int{
	"strings.TrimSpace": 1, "strings.ToUpper": 1, "strings.ToLower": 1,
	"strings.TrimPrefix": 2, "strings.TrimSuffix": 2, "strings.Trim": 2,
	"strings.ReplaceAll": 3, "strings.Replace": 4, "strings.Repeat": 2,
	"strconv.Itoa": 1, "strconv.FormatInt": 2, "strconv.Quote": 1,
}

// applyStrings computes a function of stringsFuncs on constants, and
// strings.Join of elements bound by a caller (its arguments are then the
// elements, then the separator).
func applyStrings(fn string, args []Node) (string, bool) {
	if fn == "strings.Join" && len(args) > 0 {
		elems := make([]string, len(args)-1)
		for i, a := range args[:len(args)-1] {
			elems[i] = a.Text
		}
		return strings.Join(elems, args[len(args)-1].Text), true
	}
	if len(args) != stringsFuncs[fn] {
		return "", false
	}
	s := func(i int) string { return args[i].Text }
	n := func(i int) (int64, bool) {
		v, err := strconv.ParseInt(args[i].Text, 10, 64)
		return v, err == nil && args[i].Kind == KindInt
	}
	switch fn {
	case "strings.TrimSpace":
		return strings.TrimSpace(s(0)), true
	case "strings.ToUpper":
		return strings.ToUpper(s(0)), true
	case "strings.ToLower":
		return strings.ToLower(s(0)), true
	case "strings.TrimPrefix":
		return strings.TrimPrefix(s(0), s(1)), true
	case "strings.TrimSuffix":
		return strings.TrimSuffix(s(0), s(1)), true
	case "strings.Trim":
		return strings.Trim(s(0), s(1)), true
	case "strings.ReplaceAll":
		return strings.ReplaceAll(s(0), s(1), s(2)), true
	case "strings.Replace":
		if k, ok := n(3); ok {
			return strings.Replace(s(0), s(1), s(2), int(k)), true
		}
	case "strings.Repeat":
		if k, ok := n(1); ok && k >= 0 && k <= 64 {
			return strings.Repeat(s(0), int(k)), true
		}
	case "strconv.Itoa":
		if k, ok := n(0); ok {
			return strconv.FormatInt(k, 10), true
		}
	case "strconv.FormatInt":
		if k, ok := n(0); ok {
			if base, ok := n(1); ok && base >= 2 && base <= 36 {
				return strconv.FormatInt(k, int(base)), true
			}
		}
	case "strconv.Quote":
		return strconv.Quote(s(0)), true
	}
	return "", false
}

// tooMany is the reason given for a text with more alternatives than
// maxTexts: the ones left out are queries the analysis does not see.
const tooMany = "too many alternative texts"

// cross extends each combination with each choice, keeping at most
// maxTexts combinations; it reports whether some were left out.
func cross(combos, choices [][]Node) ([][]Node, bool) {
	var next [][]Node
	for _, c := range combos {
		for _, ch := range choices {
			if len(next) >= maxTexts {
				return next, true
			}
			next = append(next, append(slices.Clone(c), ch...))
		}
	}
	return next, false
}

// singles makes each node a one-node choice.
func singles(nodes []Node) [][]Node {
	choices := make([][]Node, len(nodes))
	for i, n := range nodes {
		choices[i] = []Node{n}
	}
	return choices
}

// binder gives the alternatives of the value a caller passes for a
// parameter: one node each, or, for a spread parameter, the list of its
// elements. It returns the reason when the value is not known.
type binder func(param, field int, spread bool) (alts [][]Node, why string)

// subst replaces the parameters of n with the alternatives bind gives,
// folding what becomes constant: each combination is an alternative
// (bounded by maxTexts). It returns the reason of the first alternative
// that cannot be built.
func subst(n Node, bind binder) ([]Node, string) {
	if n.Op == OpParam {
		alts, why := bind(n.Param, n.Field, false)
		if why != "" {
			return nil, why
		}
		out := make([]Node, 0, len(alts))
		for _, a := range alts {
			out = append(out, a[0])
		}
		return out, ""
	}
	if len(n.Args) == 0 {
		return []Node{n}, ""
	}
	// Each argument's alternatives; a spread parameter stands for a list
	// of arguments.
	combos := [][]Node{nil}
	for _, a := range n.Args {
		var choices [][]Node
		if a.Op == OpParam && a.Spread {
			alts, why := bind(a.Param, 0, true)
			if why != "" {
				return nil, why
			}
			choices = alts
		} else {
			alts, why := subst(a, bind)
			if why != "" {
				return nil, why
			}
			for _, x := range alts {
				choices = append(choices, []Node{x})
			}
		}
		var over bool
		if combos, over = cross(combos, choices); over {
			return nil, tooMany
		}
	}
	out := make([]Node, 0, len(combos))
	for _, c := range combos {
		m := n
		m.Args = c
		f, why := fold(m)
		if why != "" {
			return nil, why
		}
		if f.size() > maxNodes {
			return nil, "the text is built by too many operations"
		}
		out = append(out, f)
	}
	return out, ""
}

// Bind binds a template to a call site: args are the values passed for the
// building function's parameters there (nil where not known). The result is
// in the caller's terms: constant texts, the caller's own parameters passed
// through (Params), or templates over them (Templates).
func Bind(t Template, args []ssa.Value) Text { return BindWith(t, args, nil) }

// BindWith is Bind, resolving the arguments also through what ext knows of
// other packages.
func BindWith(t Template, args []ssa.Value, ext *Externals) Text {
	// The caller: the function the arguments are values of.
	var top *ssa.Function
	for _, a := range args {
		if a != nil && a.Parent() != nil {
			top = a.Parent()
			break
		}
	}
	r := resolver{seen: map[ssa.Value]bool{}, top: top, ext: ext}
	name := func(p int) string {
		if p < len(t.Names) && t.Names[p] != "" {
			return t.Names[p]
		}
		return "#" + strconv.Itoa(p)
	}
	bind := func(p, field int, spread bool) ([][]Node, string) {
		if p < 0 || p >= len(args) || args[p] == nil {
			return nil, fmt.Sprintf("parameter %s of %s is not passed a value the analysis sees", name(p), t.Func)
		}
		var alts [][]Node
		if field > 0 {
			a := r.fieldValue(args[p], field-1, 0)
			if a.unknown {
				// What the package stores into the field anywhere, as
				// where the struct's value is not seen.
				a = r.structField(args[p], field-1)
			}
			if a.unknown {
				return nil, fmt.Sprintf("a field of parameter %s of %s is %s", name(p), t.Func, a.why)
			}
			for _, n := range a.nodes {
				alts = append(alts, []Node{n})
			}
			return alts, ""
		}
		if spread {
			elems, why := r.elemAlts(args[p], "the call", 0)
			if why != "" {
				return nil, fmt.Sprintf("parameter %s... of %s: %s", name(p), t.Func, why)
			}
			return elems, ""
		}
		a := r.value(args[p], 0)
		if a.unknown {
			return nil, fmt.Sprintf("parameter %s of %s is %s", name(p), t.Func, a.why)
		}
		for _, n := range a.nodes {
			alts = append(alts, []Node{n})
		}
		return alts, ""
	}
	nodes, why := subst(t.Root, bind)
	if why != "" {
		return Text{Unknown: true, Why: why}
	}
	return alts{nodes: nodes}.text(top)
}

// filePattern turns a file-name node into a regular expression that the
// names it can take match: its constant parts literally, anything for the
// parts bound by callers.
func filePattern(n Node) *regexp.Regexp {
	var b strings.Builder
	var walk func(Node)
	walk = func(n Node) {
		switch {
		case n.isString():
			b.WriteString(regexp.QuoteMeta(n.Text))
		case n.Op == OpConcat:
			for _, a := range n.Args {
				walk(a)
			}
		default:
			b.WriteString(".*")
		}
	}
	walk(n)
	return regexp.MustCompile("^" + b.String() + "$")
}

// Returned lists the texts t says a function returns as templates over fn's
// parameters, for its callers in other packages (Externals.Text): constant
// texts, parameters passed through and templates. It returns nil when some
// alternative is unknown or none looks like SQL: a function returning a
// name or a message is no query builder, and its summary stays empty.
func (t Text) Returned(fn *ssa.Function) []Template {
	if t.Unknown || t.Seq {
		return nil
	}
	var out []Template
	add := func(n Node) { out = append(out, Template{Root: n, Func: funcName(fn), Names: paramNames(fn)}) }
	for _, s := range t.SQL {
		add(constNode(s))
	}
	for _, p := range t.Params {
		add(paramNode(p))
	}
	for _, tt := range t.Templates {
		add(tt.Root)
	}
	if !slices.ContainsFunc(out, func(t Template) bool { return looksLikeSQL(t.Root) }) {
		return nil
	}
	return out
}

// sqlVerb matches a word that starts a statement that takes locks.
var sqlVerb = regexp.MustCompile(`(?i)\b(select|update|delete|insert|lock|with|merge|call)\b`)

// looksLikeSQL reports whether a constant part of n contains a SQL verb.
func looksLikeSQL(n Node) bool {
	if n.Op == OpConst && n.Kind == KindString && sqlVerb.MatchString(n.Text) {
		return true
	}
	for _, a := range n.Args {
		if looksLikeSQL(a) {
			return true
		}
	}
	for _, f := range n.Files {
		if sqlVerb.MatchString(f.Text) {
			return true
		}
	}
	return false
}
