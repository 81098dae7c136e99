package lockmodel

import (
	"math/big"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// advisoryFunc describes one of PostgreSQL's advisory lock functions.
type advisoryFunc struct {
	effect EffectKind
	mode   Mode
	scope  Scope
	wait   WaitPolicy
}

// advisoryFuncs lists the advisory lock functions by name.
var advisoryFuncs = map[string]advisoryFunc{
	"pg_advisory_lock":                 {Acquire, AdvisoryExclusive, Session, Block},
	"pg_advisory_lock_shared":          {Acquire, AdvisoryShared, Session, Block},
	"pg_advisory_xact_lock":            {Acquire, AdvisoryExclusive, Xact, Block},
	"pg_advisory_xact_lock_shared":     {Acquire, AdvisoryShared, Xact, Block},
	"pg_try_advisory_lock":             {Acquire, AdvisoryExclusive, Session, Try},
	"pg_try_advisory_lock_shared":      {Acquire, AdvisoryShared, Session, Try},
	"pg_try_advisory_xact_lock":        {Acquire, AdvisoryExclusive, Xact, Try},
	"pg_try_advisory_xact_lock_shared": {Acquire, AdvisoryShared, Xact, Try},
	"pg_advisory_unlock":               {Unlock, AdvisoryExclusive, Session, Block},
	"pg_advisory_unlock_shared":        {Unlock, AdvisoryShared, Session, Block},
	"pg_advisory_unlock_all":           {effect: UnlockAll},
}

// funcCall walks a function call and records it if it is an advisory lock
// function.
func (w *walker) funcCall(sc *scope, fc *pg_query.FuncCall) {
	// Arguments are evaluated before the call, so whatever they lock
	// comes first.
	w.children(sc, fc)
	name := funcName(fc.GetFuncname())
	f, ok := advisoryFuncs[name]
	if !ok {
		// A function of the schema: the locks its body takes.
		w.others = append(w.others, w.schema.callEffects(w.stmt, name, fc.GetArgs(), w.depth)...)
		return
	}
	if fc.GetAggStar() {
		return
	}
	args := fc.GetArgs()
	if f.effect == UnlockAll {
		if len(args) == 0 {
			w.others = append(w.others, Effect{Kind: UnlockAll, Stmt: w.stmt, Verb: name})
		}
		return
	}
	if len(args) != 1 && len(args) != 2 {
		return // no such function: PostgreSQL rejects the call
	}
	key := AdvisoryKey{Parts: make([]KeyPart, len(args))}
	for i, a := range args {
		if isNull(a) {
			// The functions are strict: with a NULL key they return
			// NULL and lock nothing.
			return
		}
		key.Parts[i] = keyPart(a)
	}
	eff := Effect{
		Kind: f.effect,
		Lock: Lock{Kind: Advisory, Key: key, Mode: f.mode, Wait: f.wait, Scope: f.scope},
		Stmt: w.stmt,
		Verb: name,
	}
	if f.wait == Try {
		p := w.tries[fc]
		eff.Try, eff.Column = p.use, p.column
	}
	w.others = append(w.others, eff)
}

// funcName returns the name of a function, without the pg_catalog schema
// that always comes first on the search path; other schemas stay.
func funcName(parts []*pg_query.Node) string {
	names := make([]string, 0, len(parts))
	for _, p := range parts {
		names = append(names, p.GetString_().GetSval())
	}
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	return strings.Join(names, ".")
}

// keyPart classifies one argument of an advisory function: a constant, a
// $n parameter (possibly cast), or unknown.
func keyPart(n *pg_query.Node) KeyPart {
	if c, ok := constText(n); ok {
		return KeyPart{Const: c}
	}
	for tc := n.GetTypeCast(); tc != nil; tc = n.GetTypeCast() {
		n = tc.GetArg()
	}
	if p := n.GetParamRef(); p != nil {
		return KeyPart{Param: int(p.GetNumber())}
	}
	if t, ok := templateText(n); ok {
		return KeyPart{Template: t}
	}
	return KeyPart{}
}

// templateText renders a function call whose arguments are constants or $n
// placeholders (possibly cast), such as hashtext($1), in constText's
// canonical form with the placeholders kept.
func templateText(n *pg_query.Node) (string, bool) {
	if e := n.GetAExpr(); e != nil {
		return concatTemplate(e)
	}
	fc := n.GetFuncCall()
	if fc == nil || len(fc.GetArgs()) == 0 || fc.GetAggStar() || fc.GetAggDistinct() || fc.GetOver() != nil ||
		fc.GetAggFilter() != nil || len(fc.GetAggOrder()) > 0 {
		return "", false
	}
	args := make([]string, len(fc.GetArgs()))
	hasParam := false
	for i, a := range fc.GetArgs() {
		if c, ok := constText(a); ok {
			args[i] = c
			continue
		}
		for tc := a.GetTypeCast(); tc != nil; tc = a.GetTypeCast() {
			a = tc.GetArg()
		}
		if p := a.GetParamRef(); p != nil {
			args[i] = "$" + strconv.Itoa(int(p.GetNumber()))
			hasParam = true
			continue
		}
		t, ok := templateText(a)
		if !ok {
			return "", false
		}
		args[i], hasParam = t, true
	}
	if !hasParam {
		return "", false
	}
	return funcName(fc.GetFuncname()) + "(" + strings.Join(args, ", ") + ")", true
}

// isNull reports whether n is the NULL literal, possibly cast.
func isNull(n *pg_query.Node) bool {
	for tc := n.GetTypeCast(); tc != nil; tc = n.GetTypeCast() {
		n = tc.GetArg()
	}
	return n.GetAConst().GetIsnull()
}

// constText returns the canonical text of a constant expression, so that
// the same key written differently compares equal: integers in decimal
// ("-5" for both -5 and - 5, "16" for 0x10), strings quoted ('billing'),
// casts of constants as the constant, and calls of functions on constants
// as name(args) ("hashtext('billing')").
func constText(n *pg_query.Node) (string, bool) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		return aConstText(x.AConst)
	case *pg_query.Node_TypeCast:
		c, ok := constText(x.TypeCast.GetArg())
		if ok && isIntegerType(x.TypeCast.GetTypeName()) {
			// '42'::bigint is the key 42.
			if s, isStr := strings.CutPrefix(c, "'"); isStr {
				if i, isInt := canonicalInt(strings.TrimSuffix(s, "'")); isInt {
					return i, true
				}
			}
		}
		return c, ok
	case *pg_query.Node_AExpr:
		return unaryText(x.AExpr)
	case *pg_query.Node_FuncCall:
		return callText(x.FuncCall)
	}
	return "", false
}

func aConstText(c *pg_query.A_Const) (string, bool) {
	if c.GetIsnull() {
		return "", false
	}
	switch v := c.GetVal().(type) {
	case *pg_query.A_Const_Ival:
		return strconv.FormatInt(int64(v.Ival.GetIval()), 10), true
	case *pg_query.A_Const_Fval:
		// Integers too large for int4 arrive as "float" text.
		if i, ok := canonicalInt(v.Fval.GetFval()); ok {
			return i, true
		}
		return v.Fval.GetFval(), true
	case *pg_query.A_Const_Sval:
		return "'" + strings.ReplaceAll(v.Sval.GetSval(), "'", "''") + "'", true
	case *pg_query.A_Const_Boolval:
		return strconv.FormatBool(v.Boolval.GetBoolval()), true
	case *pg_query.A_Const_Bsval:
		return v.Bsval.GetBsval(), true
	}
	return "", false
}

// unaryText handles a sign applied to a constant. The grammar already folds
// -5 into the constant; this covers what it leaves as an operator, such as
// a sign on a cast.
func unaryText(e *pg_query.A_Expr) (string, bool) {
	if e.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP || e.GetLexpr() != nil || len(e.GetName()) != 1 {
		return "", false
	}
	op := e.GetName()[0].GetString_().GetSval()
	if op != "-" && op != "+" {
		return "", false
	}
	c, ok := constText(e.GetRexpr())
	if !ok {
		return "", false
	}
	i, isInt := canonicalInt(c)
	if !isInt {
		return "", false
	}
	if op == "-" {
		if neg, wasNeg := strings.CutPrefix(i, "-"); wasNeg {
			return neg, true
		}
		if i != "0" {
			return "-" + i, true
		}
	}
	return i, true
}

// callText renders a call of a function whose arguments are all constants,
// such as hashtext('billing'). A call without arguments (random(),
// pg_backend_pid()) is not treated as constant: its value differs between
// calls or sessions.
func callText(fc *pg_query.FuncCall) (string, bool) {
	if len(fc.GetArgs()) == 0 || fc.GetAggStar() || fc.GetAggDistinct() || fc.GetOver() != nil ||
		fc.GetAggFilter() != nil || len(fc.GetAggOrder()) > 0 {
		return "", false
	}
	args := make([]string, len(fc.GetArgs()))
	for i, a := range fc.GetArgs() {
		c, ok := constText(a)
		if !ok {
			return "", false
		}
		args[i] = c
	}
	return funcName(fc.GetFuncname()) + "(" + strings.Join(args, ", ") + ")", true
}

// isIntegerType reports whether a cast target is int2, int4 or int8.
func isIntegerType(t *pg_query.TypeName) bool {
	names := t.GetNames()
	if len(names) == 0 || len(t.GetArrayBounds()) > 0 {
		return false
	}
	switch names[len(names)-1].GetString_().GetSval() {
	case "int2", "int4", "int8", "smallint", "integer", "int", "bigint":
		return true
	}
	return false
}

// canonicalInt returns the decimal form of an integer literal in
// PostgreSQL's syntax: an optional sign, then decimal digits, or 0x, 0o or
// 0b and digits of that base, with optional underscores between digits.
// Leading zeros are decimal, unlike in Go.
func canonicalInt(s string) (string, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	base := 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 10 {
			s = s[2:]
		}
	}
	if s == "" || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return "", false
	}
	digits := strings.ReplaceAll(s, "_", "")
	for _, r := range digits {
		// big.Int would accept a sign here, which must not occur
		// twice.
		if r == '+' || r == '-' {
			return "", false
		}
	}
	var v big.Int
	if _, ok := v.SetString(digits, base); !ok {
		return "", false
	}
	if neg {
		v.Neg(&v)
	}
	return v.String(), true
}

// concatTemplate renders a string concatenation of constants and $n
// placeholders ('wallet:' || $1), the usual way to build a text key for
// hashtext, as a template.
func concatTemplate(e *pg_query.A_Expr) (string, bool) {
	names := e.GetName()
	if e.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP || len(names) != 1 || names[0].GetString_().GetSval() != "||" {
		return "", false
	}
	hasParam := false
	side := func(n *pg_query.Node) (string, bool) {
		if c, ok := constText(n); ok {
			return c, true
		}
		for tc := n.GetTypeCast(); tc != nil; tc = n.GetTypeCast() {
			n = tc.GetArg()
		}
		if p := n.GetParamRef(); p != nil {
			hasParam = true
			return "$" + strconv.Itoa(int(p.GetNumber())), true
		}
		t, ok := templateText(n)
		hasParam = hasParam || ok
		return t, ok
	}
	l, okL := side(e.GetLexpr())
	r, okR := side(e.GetRexpr())
	if !okL || !okR || !hasParam {
		return "", false
	}
	return "(" + l + " || " + r + ")", true
}
