package sqlsite

import (
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// A statement a builder model rebuilds can name its table or column by a Go
// value that is not constant where the chain is built: a helper's parameter
// (func adjust(tx *sql.Tx, table, column string, ...) runs
// psql.Update(table).Set(column, ...)), or a value computed at run time. Such
// a part is a hole: the statement is rendered with a stand-in identifier in
// its place, and the text becomes a builtText whose holes the resolver
// resolves like any other string value. A parameter makes the text a
// template each caller binds (the same as "UPDATE " + table + ...), and a
// value computed at run time makes it unknown, counted as built at run time.

// holeMarker prefixes the stand-in identifier of hole i: an identifier
// PostgreSQL parses wherever a table or column name goes.
const holeMarker = "pglockorder_hole_"

// holeRE finds the stand-ins in a rendered statement.
var holeRE = regexp.MustCompile(holeMarker + `(\d+)`)

// hole records v as a part of the statement and returns its stand-in.
func (s *statement) hole(v ssa.Value) string {
	s.holes = append(s.holes, v)
	return holeMarker + strconv.Itoa(len(s.holes)-1)
}

// name returns the first word of a table or column name given as the
// string value v: its constant text, or a hole when it is not constant.
// It returns "" for a value that is no string.
func (s *statement) name(v ssa.Value) string {
	if t, ok := constText(v); ok {
		return firstWord(t)
	}
	if !isString(v.Type()) {
		return ""
	}
	return s.hole(v)
}

// textValue returns the value of a rendered statement's text: a constant,
// or a builtText when the statement has holes (fn is the function the text
// is resolved in, where the holes are values).
func (s *statement) textValue(text string, fn *ssa.Function) ssa.Value {
	if len(s.holes) == 0 {
		return ssa.NewConst(constant.MakeString(text), types.Typ[types.String])
	}
	b := &builtText{fn: fn}
	last := 0
	for _, m := range holeRE.FindAllStringSubmatchIndex(text, -1) {
		i, err := strconv.Atoi(text[m[2]:m[3]])
		if err != nil || i >= len(s.holes) {
			continue
		}
		b.parts = append(b.parts, textPart{text: text[last:m[0]]}, textPart{value: s.holes[i]})
		last = m[1]
	}
	b.parts = append(b.parts, textPart{text: text[last:]})
	return b
}

// holesParent returns the function of the first value that has one: the
// function whose values the holes are.
func holesParent(vs ...ssa.Value) *ssa.Function {
	for _, v := range vs {
		if v == nil {
			continue
		}
		if fn := v.Parent(); fn != nil {
			return fn
		}
	}
	return nil
}

// builtText is the text of a statement a builder model rebuilt, with holes:
// constant parts and Go values of fn. It is an ssa.Value so that it stands
// in an Op's arguments where a query text goes; it is no instruction of fn.
type builtText struct {
	parts []textPart
	fn    *ssa.Function
	refs  []ssa.Instruction
	// why, if set, says why the statement could not be rebuilt: its text
	// is unknown, counted as built at run time.
	why string
}

// textPart is a constant part of a builtText, or (value set) a hole.
type textPart struct {
	text  string
	value ssa.Value
}

func (b *builtText) Name() string                  { return "rebuilt statement" }
func (b *builtText) String() string                { return "rebuilt statement" }
func (b *builtText) Type() types.Type              { return types.Typ[types.String] }
func (b *builtText) Parent() *ssa.Function         { return b.fn }
func (b *builtText) Referrers() *[]ssa.Instruction { return &b.refs }
func (b *builtText) Pos() token.Pos                { return token.NoPos }

// builtText resolves a rebuilt statement: its constant parts around the
// alternatives of its holes.
func (r *resolver) builtText(b *builtText, depth int) alts {
	if b.why != "" {
		return unknown(b.why)
	}
	out := single(constNode(""))
	for _, p := range b.parts {
		if p.value == nil {
			out = concat(out, single(constNode(p.text)))
			continue
		}
		out = concat(out, r.value(p.value, depth+1))
	}
	return out
}

// unbuiltQuery returns a Query operation on handle recv that runs a
// statement of a modelled builder that its model cannot rebuild (a chain
// begun where the analysis cannot see it, a table it cannot name): the
// statement still runs, so it is counted as text built at run time, with
// the reason, rather than dropped without a word.
func (rs *Rules) unbuiltQuery(op Op, recv ssa.Value, why, via string) (Op, bool) {
	if recv == nil {
		return op, false
	}
	op.Kind = Query
	op.Recv = recv
	op.RecvKind = rs.KindOf(recv.Type())
	op.Query = len(op.Args)
	op.Params = -1
	op.Args = append(append([]ssa.Value(nil), op.Args...), &builtText{fn: holesParent(append([]ssa.Value{recv}, op.Args...)...), why: why})
	op.Via = via
	return op, true
}
