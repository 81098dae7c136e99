package lockmodel

import pg_query "github.com/pganalyze/pg_query_go/v5"

// tryPlace is where one try-lock call's result goes.
type tryPlace struct {
	use    TryUse
	column int
}

// tryPlaces finds the try-lock calls whose result the caller can see in a
// top-level SELECT: bare result columns (SELECT pg_try_advisory_lock(1) AS
// ok) and conjuncts of the WHERE clause (... WHERE id = $1 AND
// pg_try_advisory_xact_lock(id)). Anything else (a call inside an OR, a
// CASE, a sub-query, a set operation) stays TryUnseen: the lock may or may
// not be held afterwards.
func tryPlaces(s *pg_query.SelectStmt) map[*pg_query.FuncCall]tryPlace {
	if s == nil || s.GetOp() > pg_query.SetOperation_SETOP_NONE {
		return nil
	}
	out := map[*pg_query.FuncCall]tryPlace{}
	for i, t := range s.GetTargetList() {
		if fc := tryCall(t.GetResTarget().GetVal()); fc != nil {
			out[fc] = tryPlace{use: TryColumn, column: i}
		}
	}
	var conjuncts func(n *pg_query.Node)
	conjuncts = func(n *pg_query.Node) {
		if b := n.GetBoolExpr(); b != nil && b.GetBoolop() == pg_query.BoolExprType_AND_EXPR {
			for _, a := range b.GetArgs() {
				conjuncts(a)
			}
			return
		}
		if fc := tryCall(n); fc != nil {
			out[fc] = tryPlace{use: TryFilter}
		}
	}
	conjuncts(s.GetWhereClause())
	return out
}

// tryCall returns the pg_try_advisory_* call that n is, looking through
// casts; nil otherwise.
func tryCall(n *pg_query.Node) *pg_query.FuncCall {
	for tc := n.GetTypeCast(); tc != nil; tc = n.GetTypeCast() {
		n = tc.GetArg()
	}
	fc := n.GetFuncCall()
	if fc == nil {
		return nil
	}
	if f, ok := advisoryFuncs[funcName(fc.GetFuncname())]; !ok || f.wait != Try {
		return nil
	}
	return fc
}
