package lockmodel

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// RowSet says which rows one row lock takes and in what order: the facts
// behind the row-order rules. Two transactions that lock overlapping sets of
// rows of one table in different orders deadlock as surely as two that lock
// two tables in opposite orders, and table-level order cannot see it.
//
// For a per-row advisory lock (SELECT pg_advisory_xact_lock(id) FROM t ...)
// it describes the rows whose keys are locked.
type RowSet struct {
	// Multi is set when the statement can lock several rows: its
	// predicate is not an equality on a key column and it has no LIMIT 1.
	Multi bool
	// Why says what makes the lock multi-row, for messages: "= ANY($1)",
	// "IN (...)", "IN (sub-query)", "a range", "a join", "no WHERE
	// clause", "several VALUES rows", "a predicate that can match several
	// rows".
	Why string
	// Order is the statement's ORDER BY in canonical form ("hash",
	// "inserted_at DESC, id"): rows are locked in that order. Empty when
	// the statement has none.
	Order string
	// KeyParam is the $n compared for equality with KeyColumn when the
	// lock takes one row chosen by the caller, or with the one column an
	// equality-only predicate compares; 0 otherwise.
	KeyParam int
	// KeyColumn is the key column of a single-row lock ("id").
	KeyColumn string
	// EqColumns lists, comma-separated and sorted, the columns of the
	// locked table that the predicate compares for equality with a value.
	// A schema that knows these form a unique key can make a Multi lock
	// single-row.
	EqColumns string
	// EqParams lists, comma-separated and sorted by column, the columns
	// compared for equality with a $n parameter and the first such $n:
	// "bay_id=2,id=1". A lock whose rows share a column value with a
	// lock held before (bins of the warehouse locked first) is within
	// that lock's scope.
	EqParams string
	// EqualityOnly is set when the predicate selects its rows by equality
	// on columns that are not a key (WHERE account_id = $1): two
	// statements that lock the same such rows share the predicate and
	// the plan, and so the order. It does not make a lock unordered.
	EqualityOnly bool
	// SetParams lists, comma-separated and sorted by column, the columns
	// compared with = ANY($n) of a parameter and that $n: "inode=1". Every
	// row locked has in that column one of the elements of the value
	// bound to $n.
	SetParams string
	// GateShape is set when the predicate is nothing but equalities of
	// columns with parameters or constants and = ANY($n) of parameters
	// (no range, join, sub-query or other condition): the rows it locks
	// are exactly those the values bound to its parameters name. It is
	// the predicate with the parameters blanked, sorted by column
	// ("inode=$ AND kind='d' LIMIT 1"): two such locks of one table with
	// one shape, whose parameters are bound to the same values, lock the
	// same rows. A parent row locked this way gates the statements whose
	// rows the same values select (see lockseq's keyed gates).
	GateShape string
	// PreLocked is set on the rows an UPDATE or DELETE changes when an
	// earlier part of the same statement (a CTE or sub-query with FOR
	// UPDATE) locked them already: the statement's own lock waits for
	// nothing new, so the order is that of the earlier lock.
	PreLocked bool
}

// Unordered reports whether the lock can take several rows in no defined
// order.
func (r RowSet) Unordered() bool {
	return r.Multi && r.Order == "" && !r.PreLocked && !r.EqualityOnly
}

// SetPredicate reports whether the rows are chosen by a set of keys or a
// range (= ANY, IN, BETWEEN, <), or by several VALUES rows: sets that two
// executions choose differently and that overlap.
func (r RowSet) SetPredicate() bool {
	switch r.Why {
	case whyAny, whyIn, whyInQuery, whyRange, whyValues, whySelect, whyList:
		return true
	}
	return false
}

// The reasons a lock takes several rows.
const (
	whyAny     = "= ANY(...)"
	whyIn      = "IN (...)"
	whyInQuery = "IN (sub-query)"
	whyRange   = "a range"
	whyValues  = "several VALUES rows"
	whySelect  = "the rows of a SELECT"
	whyList    = "a join with a list of keys"
)

// joinsKeyList reports whether a FROM (or USING) list joins a list the
// statement carries: a VALUES list or a set-returning function such as
// unnest($1).
func joinsKeyList(from []*pg_query.Node) bool {
	for _, f := range from {
		if rs := f.GetRangeSubselect(); rs != nil {
			if s := rs.GetSubquery().GetSelectStmt(); s != nil && (len(s.GetValuesLists()) > 0 || setReturning(s.GetTargetList())) {
				return true
			}
		}
		if rf := f.GetRangeFunction(); rf != nil {
			return true
		}
		if j := f.GetJoinExpr(); j != nil && joinsKeyList([]*pg_query.Node{j.GetLarg(), j.GetRarg()}) {
			return true
		}
	}
	return false
}

// isKeyColumn reports whether a column, by its name alone, identifies one
// row of table: "id", "uuid", or the table's singular name with "_id" or
// "_uuid" ("account_id" in accounts). Without a schema this is the
// convention almost every service follows.
func isKeyColumn(table, col string) bool {
	switch col {
	case "id", "uuid":
		return true
	}
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		table = table[i+1:]
	}
	for _, stem := range []string{table, strings.TrimSuffix(table, "s"), strings.TrimSuffix(table, "es"), strings.TrimSuffix(table, "ies") + "y"} {
		if stem != "" && (col == stem+"_id" || col == stem+"_uuid") {
			return true
		}
	}
	return false
}

// predicate is the row-set view of one query level: the WHERE clause,
// ORDER BY, LIMIT and how many relations its FROM list joins.
type predicate struct {
	where  *pg_query.Node
	sort   []*pg_query.Node
	limit  *pg_query.Node
	joined bool // the level reads more than one relation
	// keyList is set when the level joins a list the statement carries
	// (FROM (VALUES ...) v, FROM unnest($1) k): the rows come in the
	// list's order, which each caller chooses.
	keyList bool
	// schema is the statement's schema (nil: none), which decides the
	// table's key columns.
	schema *Schema
}

// rowSet computes the RowSet of the rows of table (referred to as ref in the
// query) that the level locks.
func (p predicate) rowSet(table, ref string) RowSet {
	rs := RowSet{Order: sortText(p.sort)}
	conj := conjuncts(p.where)
	var eq []string
	eqParams := map[int]bool{}
	firstParam := map[string]int{}
	why := ""
	// constSet is set when a conjunct restricts a column to a set of
	// constants: the statement, not its caller, chooses it.
	constSet := false
	// keySet is set when a conjunct restricts a column to a set of keys
	// the caller chooses (= ANY, IN, a sub-query of other values); a
	// range alone is not one, nor a sub-query within the statement's own
	// equalities.
	keySet := false
	var subqueries []*pg_query.Node
	// shape collects the conjuncts in GateShape's form; pure is cleared
	// by any conjunct it cannot render.
	var shape []string
	pure := p.where != nil && !p.joined && !p.keyList
	setParam := map[string]int{}
	// A schema that knows the table decides which columns are keys; the
	// naming convention stands in for it otherwise.
	known := p.schema.lookup(table) != nil
	for _, c := range conj {
		col, param, kind := comparison(c, ref, p.joined)
		switch kind {
		case cmpEq:
			if col == "" {
				continue
			}
			eq = append(eq, col)
			eqParams[param] = true
			switch other := eqValue(c); {
			case param > 0:
				shape = append(shape, col+"=$")
			case other != "":
				shape = append(shape, col+"="+other)
			default:
				pure = false
			}
			if _, ok := firstParam[col]; !ok {
				firstParam[col] = param
			}
			if !known && isKeyColumn(table, col) {
				rs.KeyColumn, rs.KeyParam = col, param
			}
		case cmpAny:
			why = cmp(why, whyAny)
			keySet = true
			if col == "" || param == 0 {
				pure = false
				break
			}
			shape = append(shape, col+"=ANY($)")
			if _, ok := setParam[col]; !ok {
				setParam[col] = param
			}
		case cmpIn:
			why = cmp(why, whyIn)
			keySet = true
		case cmpInQuery:
			why = cmp(why, whyInQuery)
			subqueries = append(subqueries, c)
		case cmpRange:
			why = cmp(why, whyRange)
		case cmpConstSet:
			constSet = true
		}
		if kind != cmpEq && kind != cmpAny {
			pure = false
		}
	}
	if pure && len(shape) > 0 {
		slices.Sort(shape)
		rs.GateShape = strings.Join(shape, " AND ")
		if isLimitOne(p.limit) {
			rs.GateShape += " LIMIT 1"
		}
		var sets []string
		for _, col := range slices.Sorted(maps.Keys(setParam)) {
			sets = append(sets, col+"="+strconv.Itoa(setParam[col]))
		}
		rs.SetParams = strings.Join(sets, ",")
	}
	for _, c := range subqueries {
		if !withinParams(c.GetSubLink().GetSubselect(), eqParams) {
			keySet = true
		}
	}
	slices.Sort(eq)
	eq = slices.Compact(eq)
	rs.EqColumns = strings.Join(eq, ",")
	var byParam []string
	for _, col := range eq {
		if n := firstParam[col]; n > 0 {
			byParam = append(byParam, col+"="+strconv.Itoa(n))
		}
	}
	rs.EqParams = strings.Join(byParam, ",")
	if known && p.schema.IsSingleRow(table, eq) {
		// The equalities cover a primary key or unique constraint; name
		// the key by its first column for messages and keys.
		for _, col := range eq {
			if p.schema.IsKeyColumn(table, col) {
				rs.KeyColumn, rs.KeyParam = col, firstParam[col]
				break
			}
		}
		if rs.KeyColumn == "" {
			rs.KeyColumn = eq[0]
		}
		return rs
	}
	if rs.KeyColumn != "" || isLimitOne(p.limit) {
		// One row: by its key (which the key rules follow), or by
		// LIMIT 1.
		return rs
	}
	rs.Multi = true
	switch {
	case (why == whyRange || why == whyInQuery) && !keySet && !p.joined && rs.EqColumns != "":
		// WHERE inode = $1 AND indx BETWEEN $2 AND $3, or AND task_id
		// IN (SELECT ... WHERE queue = $1 ... LIMIT $4): the rows of
		// one value, a part of them that the statement, not its
		// caller, chooses. Every execution reads them with that
		// predicate and plan, in one direction: one order, as with the
		// equality alone.
		part := "a range"
		if why == whyInQuery {
			part = "a sub-query"
		}
		rs.Why = "equality on " + rs.EqColumns + " and " + part + ", not a key"
		rs.EqualityOnly = true
		if len(eqParams) == 1 {
			for p := range eqParams {
				rs.KeyParam = p
			}
		}
	case why != "":
		rs.Why = why
	case p.keyList:
		rs.Why = whyList
	case p.where == nil && p.joined:
		rs.Why = "a join"
	case p.where == nil:
		rs.Why = "no WHERE clause"
	case p.joined:
		rs.Why = "a join"
	case rs.EqColumns != "" && constSet:
		// WHERE account_id = $1 AND status IN ('draft', 'open'): one
		// plan, one order, for one account.
		rs.Why = "equality on " + rs.EqColumns + " and a constant set, not a key"
		rs.EqualityOnly = true
		if len(eqParams) == 1 {
			for p := range eqParams {
				rs.KeyParam = p
			}
		}
	case constSet:
		rs.Why = "a constant set, not a key"
		rs.EqualityOnly = true
	case rs.EqColumns != "":
		rs.Why = "equality on " + rs.EqColumns + ", not a key"
		rs.EqualityOnly = true
		if len(eqParams) == 1 {
			for p := range eqParams {
				rs.KeyParam = p
			}
		}
	default:
		rs.Why = "a predicate that can match several rows"
	}
	return rs
}

// withinParams reports whether a sub-query picks its rows within the
// enclosing level's equalities rather than from a set its caller passes: no
// parameter of its own is a set (= ANY($n), IN ($n, ...), unnest($n), a
// list of VALUES) unless it is one of the level's equality parameters
// (eqParams, keyed by $n). Its own equalities, ranges and LIMIT narrow the
// rows of the level's key; they choose no other keys.
func withinParams(sub *pg_query.Node, eqParams map[int]bool) bool {
	s := sub.GetSelectStmt()
	if s == nil {
		return false
	}
	ok := true
	var visit func(m proto.Message, set bool)
	visit = func(m proto.Message, set bool) {
		if !ok || m == nil {
			return
		}
		switch x := m.(type) {
		case *pg_query.ParamRef:
			if set && !eqParams[int(x.GetNumber())] {
				ok = false
			}
			return
		case *pg_query.A_Expr:
			switch x.GetKind() {
			case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL, pg_query.A_Expr_Kind_AEXPR_IN:
				set = true
			}
		case *pg_query.FuncCall:
			if setReturningFunc(x) {
				set = true
			}
		case *pg_query.RangeFunction:
			set = true
		case *pg_query.SelectStmt:
			if len(x.GetValuesLists()) > 0 {
				set = true
			}
		}
		pm := m.ProtoReflect()
		if !pm.IsValid() {
			return
		}
		pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				for i := range v.List().Len() {
					visit(v.List().Get(i).Message().Interface(), set)
				}
			default:
				visit(v.Message().Interface(), set)
			}
			return ok
		})
	}
	visit(s, false)
	return ok
}

// constant reports whether n is a constant: a literal, a list or array of
// literals (ARRAY['a', 'b'], '{a,b}'), possibly cast. A $n parameter is not:
// its value is the caller's.
func constant(n *pg_query.Node) bool {
	switch {
	case n == nil:
		return false
	case n.GetAConst() != nil:
		return true
	case n.GetTypeCast() != nil:
		return constant(n.GetTypeCast().GetArg())
	case n.GetList() != nil:
		return allConstant(n.GetList().GetItems())
	case n.GetAArrayExpr() != nil:
		return allConstant(n.GetAArrayExpr().GetElements())
	}
	return false
}

func allConstant(items []*pg_query.Node) bool {
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		if !constant(it) {
			return false
		}
	}
	return true
}

// cmp keeps the first reason found.
func cmp(old, why string) string {
	if old != "" {
		return old
	}
	return why
}

// cmpKind classifies one conjunct of a WHERE clause.
type cmpKind uint8

const (
	cmpOther    cmpKind = iota
	cmpEq               // col = value
	cmpAny              // col = ANY(array)
	cmpIn               // col IN (list of several)
	cmpInQuery          // col IN (SELECT ...)
	cmpRange            // col < value, BETWEEN, ...
	cmpConstSet         // col IN ('a', 'b'), col = ANY('{a,b}'): a set the statement fixes
)

// comparison classifies conjunct c as it applies to the relation ref: for an
// equality, the column of ref compared with a value (and the $n of that
// value, if it is a parameter).
func comparison(c *pg_query.Node, ref string, joined bool) (col string, param int, kind cmpKind) {
	if sl := c.GetSubLink(); sl != nil && sl.GetSubLinkType() == pg_query.SubLinkType_ANY_SUBLINK {
		if anyColumnOf(sl.GetTestexpr(), ref, joined) {
			return "", 0, cmpInQuery
		}
		return "", 0, cmpOther
	}
	e := c.GetAExpr()
	if e == nil {
		return "", 0, cmpOther
	}
	op := ""
	if names := e.GetName(); len(names) > 0 {
		op = names[len(names)-1].GetString_().GetSval()
	}
	colOf := func() (string, *pg_query.Node, bool) {
		if name, ok := columnOf(e.GetLexpr(), ref, joined); ok {
			return name, e.GetRexpr(), true
		}
		if name, ok := columnOf(e.GetRexpr(), ref, joined); ok {
			return name, e.GetLexpr(), true
		}
		return "", nil, false
	}
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		name, other, ok := colOf()
		if !ok {
			return "", 0, cmpOther
		}
		switch op {
		case "=":
			if refersTo(other, ref, joined) {
				return "", 0, cmpOther // a join condition or t.a = t.b
			}
			return name, paramNumber(other), cmpEq
		case "<", ">", "<=", ">=":
			return "", 0, cmpRange
		}
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY:
		if name, other, ok := colOf(); ok && op == "=" {
			if constant(other) {
				return "", 0, cmpConstSet
			}
			if refersTo(other, ref, joined) {
				return "", 0, cmpAny
			}
			return name, paramNumber(other), cmpAny
		}
	case pg_query.A_Expr_Kind_AEXPR_IN:
		name, ok := columnOf(e.GetLexpr(), ref, joined)
		if !ok {
			if op == "=" && anyColumnOf(e.GetLexpr(), ref, joined) {
				return "", 0, cmpIn // (a, b) IN ((1, 2), (3, 4))
			}
			return "", 0, cmpOther
		}
		if items := e.GetRexpr().GetList().GetItems(); len(items) == 1 && op == "=" {
			return name, paramNumber(items[0]), cmpEq
		}
		if op == "=" {
			if constant(e.GetRexpr()) {
				return "", 0, cmpConstSet
			}
			return "", 0, cmpIn
		}
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM:
		if _, ok := columnOf(e.GetLexpr(), ref, joined); ok {
			return "", 0, cmpRange
		}
	}
	return "", 0, cmpOther
}

// columnOf returns the column name if n is a column of the relation ref: a
// qualified reference to ref, or an unqualified one when the level reads
// only one relation.
func columnOf(n *pg_query.Node, ref string, joined bool) (string, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg()
	}
	cr := n.GetColumnRef()
	if cr == nil {
		return "", false
	}
	var parts []string
	for _, f := range cr.GetFields() {
		s := f.GetString_()
		if s == nil {
			return "", false // t.*
		}
		parts = append(parts, s.GetSval())
	}
	switch len(parts) {
	case 1:
		if joined {
			return "", false
		}
		return parts[0], true
	case 2:
		if parts[0] == ref {
			return parts[1], true
		}
	case 3:
		if parts[1] == ref {
			return parts[2], true
		}
	}
	return "", false
}

// anyColumnOf reports whether n is a column of ref, or a row constructor
// ((task_id, inserted_at) IN (SELECT ...)) with one.
func anyColumnOf(n *pg_query.Node, ref string, joined bool) bool {
	if _, ok := columnOf(n, ref, joined); ok {
		return true
	}
	if r := n.GetRowExpr(); r != nil {
		for _, a := range r.GetArgs() {
			if _, ok := columnOf(a, ref, joined); ok {
				return true
			}
		}
	}
	return false
}

// refersTo reports whether expression n mentions a column of ref (or any
// column, for an unqualified reference in a join).
func refersTo(n *pg_query.Node, ref string, joined bool) bool {
	if n == nil {
		return false
	}
	if _, ok := columnOf(n, ref, joined); ok {
		return true
	}
	if n.GetColumnRef() != nil {
		// A column of another relation of the join: a join condition.
		return true
	}
	return false
}

// paramNumber returns n of a $n (possibly cast) or 0.
func paramNumber(n *pg_query.Node) int {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg()
	}
	if p := n.GetParamRef(); p != nil {
		return int(p.GetNumber())
	}
	return 0
}

// eqValue renders the constant an equality conjunct compares a column with
// ("'d'", "42"), or "" when it compares with anything else.
func eqValue(c *pg_query.Node) string {
	e := c.GetAExpr()
	if e == nil {
		return ""
	}
	for _, side := range []*pg_query.Node{e.GetRexpr(), e.GetLexpr()} {
		if tc := side.GetTypeCast(); tc != nil {
			side = tc.GetArg()
		}
		k := side.GetAConst()
		if k == nil {
			continue
		}
		switch {
		case k.GetIsnull():
			return ""
		case k.GetIval() != nil:
			return strconv.Itoa(int(k.GetIval().GetIval()))
		case k.GetSval() != nil:
			return "'" + strings.ReplaceAll(k.GetSval().GetSval(), "'", "''") + "'"
		case k.GetFval() != nil:
			return k.GetFval().GetFval()
		case k.GetBoolval() != nil:
			return strconv.FormatBool(k.GetBoolval().GetBoolval())
		}
	}
	return ""
}

// conjuncts flattens the top-level AND of a WHERE clause.
func conjuncts(n *pg_query.Node) []*pg_query.Node {
	if n == nil {
		return nil
	}
	if b := n.GetBoolExpr(); b != nil && b.GetBoolop() == pg_query.BoolExprType_AND_EXPR {
		var out []*pg_query.Node
		for _, a := range b.GetArgs() {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg_query.Node{n}
}

// isLimitOne reports whether LIMIT is the constant 1 (or 0).
func isLimitOne(n *pg_query.Node) bool {
	c := n.GetAConst()
	if c == nil || c.GetIval() == nil {
		return false
	}
	return c.GetIval().GetIval() <= 1
}

// sortText spells an ORDER BY list canonically: each key as its column name
// without the relation's alias (two statements alias the table differently),
// with DESC and NULLS FIRST/LAST when they differ from the default. A key
// that is not a plain column is spelled "(expression N)" so that two such
// keys never look equal.
func sortText(sort []*pg_query.Node) string {
	var keys []string
	for i, n := range sort {
		sb := n.GetSortBy()
		if sb == nil {
			continue
		}
		key := "(expression " + strconv.Itoa(i+1) + ")"
		if cr := sb.GetNode().GetColumnRef(); cr != nil {
			if f := cr.GetFields(); len(f) > 0 && f[len(f)-1].GetString_() != nil {
				key = f[len(f)-1].GetString_().GetSval()
			}
		} else if c := sb.GetNode().GetAConst(); c != nil && c.GetIval() != nil {
			key = "(column " + strconv.Itoa(int(c.GetIval().GetIval())) + ")"
		}
		desc := sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_DESC
		if desc {
			key += " DESC"
		}
		// PostgreSQL's default is NULLS LAST for ASC and NULLS FIRST for
		// DESC; only a different choice changes the order.
		switch sb.GetSortbyNulls() {
		case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
			if !desc {
				key += " NULLS FIRST"
			}
		case pg_query.SortByNulls_SORTBY_NULLS_LAST:
			if desc {
				key += " NULLS LAST"
			}
		}
		keys = append(keys, key)
	}
	return strings.Join(keys, ", ")
}

// markPreLocked marks the rows of an UPDATE or DELETE that an earlier row
// lock of the same statement, on the same table and in a mode at least as
// strong, has taken already: WITH locked AS (SELECT ... ORDER BY id FOR
// UPDATE) UPDATE t ... WHERE id IN (SELECT id FROM locked).
func markPreLocked(effects []Effect) {
	for i := range effects {
		e := &effects[i]
		if e.Kind != Acquire || e.Lock.Kind != Row || !e.Rows.Multi {
			continue
		}
		if e.Verb != "UPDATE" && e.Verb != "DELETE" {
			continue
		}
		for _, prev := range effects[:i] {
			if prev.Kind == Acquire && prev.Lock.Kind == Row && prev.Stmt == e.Stmt &&
				prev.Lock.Table == e.Lock.Table && covers(prev.Lock.Mode, e.Lock.Mode) {
				e.Rows.PreLocked = true
				break
			}
		}
	}
}
