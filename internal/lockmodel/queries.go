package lockmodel

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// rowLockReq is the row locking that applies to one table: the combination
// of every FOR UPDATE/SHARE clause that reaches it.
type rowLockReq struct {
	strength pg_query.LockClauseStrength
	wait     pg_query.LockWaitPolicy
}

// merge combines two clauses the way PostgreSQL does when several reach the
// same table: the strongest strength wins, and NOWAIT beats SKIP LOCKED,
// which beats waiting. Both enums are declared in that order.
func (r rowLockReq) merge(o rowLockReq) rowLockReq {
	return rowLockReq{strength: max(r.strength, o.strength), wait: max(r.wait, o.wait)}
}

// mode returns the row lock mode, or false if the request locks no rows.
func (r rowLockReq) mode() (Mode, bool) {
	switch r.strength {
	case pg_query.LockClauseStrength_LCS_FORKEYSHARE:
		return ForKeyShare, true
	case pg_query.LockClauseStrength_LCS_FORSHARE:
		return ForShare, true
	case pg_query.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return ForNoKeyUpdate, true
	case pg_query.LockClauseStrength_LCS_FORUPDATE:
		return ForUpdate, true
	}
	return 0, false
}

func (r rowLockReq) waitPolicy() WaitPolicy {
	switch r.wait {
	case pg_query.LockWaitPolicy_LockWaitError:
		return NoWait
	case pg_query.LockWaitPolicy_LockWaitSkip:
		return SkipLocked
	}
	return Block
}

// verb spells the request like the SQL that makes it: "SELECT ... FOR
// UPDATE", "SELECT ... FOR SHARE SKIP LOCKED".
func (r rowLockReq) verb() string {
	mode, ok := r.mode()
	if !ok {
		return "SELECT"
	}
	v := "SELECT ... " + mode.String()
	switch r.waitPolicy() {
	case NoWait:
		v += " NOWAIT"
	case SkipLocked:
		v += " SKIP LOCKED"
	}
	return v
}

// lockClause is one FOR UPDATE/SHARE clause of a query level.
type lockClause struct {
	req rowLockReq
	of  []string // the OF names; nil means every table of the level
}

// level is one query level (one SELECT, or the FROM list of an UPDATE,
// DELETE or MERGE): its locking clauses and the row locks it takes.
type level struct {
	verb      string // verb of the level's plain reads
	clauses   []lockClause
	inherited rowLockReq // a clause of an enclosing level that covers all of this one
	rows      []Effect
	refs      []string // how the query refers to the table of each of rows
}

// newSelectLevel returns the level of a SELECT with the given locking clauses.
func newSelectLevel(clauses []*pg_query.Node, inherited rowLockReq) *level {
	lv := &level{verb: "SELECT", inherited: inherited}
	for _, n := range clauses {
		lc := n.GetLockingClause()
		if lc == nil {
			continue
		}
		c := lockClause{req: rowLockReq{strength: lc.GetStrength(), wait: lc.GetWaitPolicy()}}
		for _, rel := range lc.GetLockedRels() {
			// PostgreSQL rejects qualified names in OF, and matches
			// the rest against the alias or, without one, the table
			// name.
			c.of = append(c.of, rel.GetRangeVar().GetRelname())
		}
		lv.clauses = append(lv.clauses, c)
	}
	return lv
}

// reqFor returns the row locking for the FROM item that the query refers to
// as name (its alias, or the table name when it has none).
func (lv *level) reqFor(name string) rowLockReq {
	r := lv.inherited
	for _, c := range lv.clauses {
		if c.of == nil || (name != "" && slices.Contains(c.of, name)) {
			r = r.merge(c.req)
		}
	}
	return r
}

// fromItem walks one item of a FROM list (or USING list, or MERGE source).
func (w *walker) fromItem(sc *scope, n *pg_query.Node, lv *level) {
	switch item := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		w.readTable(sc, item.RangeVar, lv)
	case *pg_query.Node_JoinExpr:
		j := item.JoinExpr
		w.fromItem(sc, j.GetLarg(), lv)
		w.fromItem(sc, j.GetRarg(), lv)
		w.node(sc, j.GetQuals())
	case *pg_query.Node_RangeSubselect:
		// A locking clause reaches into a sub-select in FROM, and OF
		// may name the sub-select by its alias.
		rs := item.RangeSubselect
		w.query(sc, rs.GetSubquery(), lv.reqFor(rs.GetAlias().GetAliasname()))
	case *pg_query.Node_RangeTableSample:
		ts := item.RangeTableSample
		w.fromItem(sc, ts.GetRelation(), lv)
		w.nodes(sc, ts.GetArgs())
		w.node(sc, ts.GetRepeatable())
	default:
		// Functions in FROM, XMLTABLE, ...: no table, but maybe an
		// advisory call or a sub-query.
		w.node(sc, n)
	}
}

// joinOfKeys reports whether every relation a join level reads yields one
// row: its WHERE and inner join conditions compare a full key of each (the
// schema's primary key or a unique constraint; without a schema, a key by
// name) with parameters or constants, or with the columns of relations that
// are themselves one row (current_executions by its key, joined to
// executions on all of its key columns). A level that reads anything but
// tables through inner joins is not judged.
func joinOfKeys(s *pg_query.SelectStmt, schema *Schema) bool {
	type relation struct{ table, ref string }
	var rels []relation
	var conds []*pg_query.Node
	var collect func(n *pg_query.Node) bool
	collect = func(n *pg_query.Node) bool {
		switch item := n.GetNode().(type) {
		case *pg_query.Node_RangeVar:
			ref := item.RangeVar.GetAlias().GetAliasname()
			if ref == "" {
				ref = item.RangeVar.GetRelname()
			}
			rels = append(rels, relation{tableName(item.RangeVar), ref})
			return true
		case *pg_query.Node_JoinExpr:
			j := item.JoinExpr
			if j.GetJointype() != pg_query.JoinType_JOIN_INNER || len(j.GetUsingClause()) > 0 || j.GetIsNatural() {
				return false
			}
			conds = append(conds, conjuncts(j.GetQuals())...)
			return collect(j.GetLarg()) && collect(j.GetRarg())
		}
		return false
	}
	for _, f := range s.GetFromClause() {
		if !collect(f) {
			return false
		}
	}
	conds = append(conds, conjuncts(s.GetWhereClause())...)
	// The column of relation i an expression is, if any.
	columnAt := func(n *pg_query.Node) (int, string) {
		for i, r := range rels {
			if col, ok := columnOf(n, r.ref, true); ok {
				return i, col
			}
		}
		return -1, ""
	}
	fixed := make([][]string, len(rels)) // columns equal to a value
	type link struct {
		a, b       int
		colA, colB string
	}
	var links []link
	for _, c := range conds {
		e := c.GetAExpr()
		if e == nil || e.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP || len(e.GetName()) == 0 ||
			e.GetName()[len(e.GetName())-1].GetString_().GetSval() != "=" {
			continue
		}
		li, lc := columnAt(e.GetLexpr())
		ri, rc := columnAt(e.GetRexpr())
		switch {
		case li >= 0 && ri >= 0 && li != ri:
			links = append(links, link{li, ri, lc, rc})
		case li >= 0 && ri < 0 && (paramNumber(e.GetRexpr()) > 0 || constant(e.GetRexpr())):
			fixed[li] = append(fixed[li], lc)
		case ri >= 0 && li < 0 && (paramNumber(e.GetLexpr()) > 0 || constant(e.GetLexpr())):
			fixed[ri] = append(fixed[ri], rc)
		}
	}

	single := func(i int, cols []string) bool {
		if schema.lookup(rels[i].table) != nil {
			return schema.IsSingleRow(rels[i].table, cols)
		}
		return slices.ContainsFunc(cols, func(c string) bool { return isKeyColumn(rels[i].table, c) })
	}
	one := make([]bool, len(rels))
	for changed := true; changed; {
		changed = false
		for i := range rels {
			if one[i] {
				continue
			}
			cols := slices.Clone(fixed[i])
			for _, l := range links {
				switch {
				case l.a == i && one[l.b]:
					cols = append(cols, l.colA)
				case l.b == i && one[l.a]:
					cols = append(cols, l.colB)
				}
			}
			if single(i, cols) {
				one[i], changed = true, true
			}
		}
	}
	return len(rels) > 1 && !slices.Contains(one, false)
}

// readTable records a table read in FROM: ACCESS SHARE, or ROW SHARE plus
// row locks when a locking clause reaches it.
func (w *walker) readTable(sc *scope, rv *pg_query.RangeVar, lv *level) {
	if rv.GetSchemaname() == "" && sc.isCTE(rv.GetRelname()) {
		return
	}
	table := tableName(rv)
	ref := rv.GetAlias().GetAliasname()
	if ref == "" {
		ref = rv.GetRelname()
	}
	req := lv.reqFor(ref)
	mode, locked := req.mode()
	if !locked {
		w.addTable(table, AccessShare, Block, true, lv.verb)
		return
	}
	// NOWAIT and SKIP LOCKED apply to row locks only: the table lock
	// still waits (pg-lock-facts T7d).
	w.addTable(table, RowShare, Block, true, req.verb())
	e := rowEffect(w.stmt, table, mode, req.waitPolicy(), req.verb())
	// A self-join locks rows of the same table twice; one effect is enough.
	if !slices.ContainsFunc(lv.rows, func(o Effect) bool { return o.Lock.Table == table && o.Lock.Mode == mode && o.Lock.Wait == e.Lock.Wait }) {
		lv.rows = append(lv.rows, e)
		lv.refs = append(lv.refs, ref)
	}
}

// selectStmt walks a SELECT (or VALUES) at any depth. inherited is the
// locking clause of an enclosing level that reaches into this one.
func (w *walker) selectStmt(sc *scope, s *pg_query.SelectStmt, inherited rowLockReq) {
	if s == nil {
		return
	}
	sc = w.withClause(sc, s.GetWithClause())
	if s.GetOp() > pg_query.SetOperation_SETOP_NONE {
		// Each arm of UNION/INTERSECT/EXCEPT is a level of its own.
		// PostgreSQL rejects FOR UPDATE on a set operation, so no
		// locking clause is passed down.
		w.selectStmt(sc, s.GetLarg(), rowLockReq{})
		w.selectStmt(sc, s.GetRarg(), rowLockReq{})
		w.nodes(sc, s.GetSortClause())
		w.node(sc, s.GetLimitOffset())
		w.node(sc, s.GetLimitCount())
		return
	}
	lv := newSelectLevel(s.GetLockingClause(), inherited)
	for _, f := range s.GetFromClause() {
		w.fromItem(sc, f, lv)
	}
	w.nodes(sc, s.GetDistinctClause())
	targets := len(w.others)
	w.nodes(sc, s.GetTargetList())
	pred := predicate{where: s.GetWhereClause(), sort: s.GetSortClause(), limit: s.GetLimitCount(), joined: relations(s.GetFromClause()) > 1, schema: w.schema}
	w.perRowAdvisory(sc, s, w.others[targets:], pred)
	w.node(sc, s.GetWhereClause())
	w.nodes(sc, s.GetGroupClause())
	w.node(sc, s.GetHavingClause())
	w.nodes(sc, s.GetWindowClause())
	w.nodes(sc, s.GetValuesLists())
	w.nodes(sc, s.GetSortClause())
	w.node(sc, s.GetLimitOffset())
	w.node(sc, s.GetLimitCount())
	keyed := pred.joined && len(lv.rows) > 0 && joinOfKeys(s, w.schema)
	for i := range lv.rows {
		lv.rows[i].Rows = pred.rowSet(lv.rows[i].Lock.Table, lv.refs[i])
		if keyed && lv.rows[i].Rows.Multi {
			// Every relation of the join is one row: each is
			// selected by a full key, from parameters or from the
			// columns of another such relation.
			lv.rows[i].Rows = RowSet{}
		}
	}
	// The level's own rows are locked as its result rows come out, after
	// its sub-queries ran.
	w.others = append(w.others, lv.rows...)
}

// updateStmt: ROW EXCLUSIVE on the target and FOR NO KEY UPDATE on the rows
// it changes. Tables in FROM and in sub-queries are only read: their rows
// are not locked (pg-lock-facts T4h).
func (w *walker) updateStmt(sc *scope, u *pg_query.UpdateStmt) {
	const verb = "UPDATE"
	sc = w.withClause(sc, u.GetWithClause())
	target := tableName(u.GetRelation())
	w.addTable(target, RowExclusive, Block, true, verb)
	lv := &level{verb: verb}
	for _, f := range u.GetFromClause() {
		w.fromItem(sc, f, lv)
	}
	w.nodes(sc, u.GetTargetList())
	w.node(sc, u.GetWhereClause())
	pred := predicate{where: u.GetWhereClause(), joined: len(u.GetFromClause()) > 0, keyList: joinsKeyList(u.GetFromClause()), schema: w.schema}
	w.addRow(target, ForNoKeyUpdate, verb, pred.rowSet(target, refName(u.GetRelation())))
	w.nodes(sc, u.GetReturningList())
}

// deleteStmt: ROW EXCLUSIVE on the target and FOR UPDATE on the rows it
// deletes; USING tables are only read.
func (w *walker) deleteStmt(sc *scope, d *pg_query.DeleteStmt) {
	const verb = "DELETE"
	sc = w.withClause(sc, d.GetWithClause())
	target := tableName(d.GetRelation())
	w.addTable(target, RowExclusive, Block, true, verb)
	lv := &level{verb: verb}
	for _, f := range d.GetUsingClause() {
		w.fromItem(sc, f, lv)
	}
	w.node(sc, d.GetWhereClause())
	pred := predicate{where: d.GetWhereClause(), joined: len(d.GetUsingClause()) > 0, keyList: joinsKeyList(d.GetUsingClause()), schema: w.schema}
	w.addRow(target, ForUpdate, verb, pred.rowSet(target, refName(d.GetRelation())))
	w.nodes(sc, d.GetReturningList())
}

// insertStmt: ROW EXCLUSIVE on the target; ON CONFLICT DO UPDATE also locks
// the conflicting row FOR UPDATE before updating it.
func (w *walker) insertStmt(sc *scope, ins *pg_query.InsertStmt) {
	verb := "INSERT"
	oc := ins.GetOnConflictClause()
	switch oc.GetAction() {
	case pg_query.OnConflictAction_ONCONFLICT_UPDATE:
		verb = "INSERT ... ON CONFLICT DO UPDATE"
	case pg_query.OnConflictAction_ONCONFLICT_NOTHING:
		verb = "INSERT ... ON CONFLICT DO NOTHING"
	}
	sc = w.withClause(sc, ins.GetWithClause())
	// PostgreSQL locks the target before it looks at the source query.
	target := tableName(ins.GetRelation())
	w.addTable(target, RowExclusive, Block, true, verb)
	w.query(sc, ins.GetSelectStmt(), rowLockReq{})
	if oc != nil {
		w.nodes(sc, oc.GetTargetList())
		w.node(sc, oc.GetWhereClause())
	}
	if oc.GetAction() == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		rows := insertedRows(sc, ins.GetSelectStmt())
		rows.EqParams = conflictParams(ins)
		w.addRow(target, ForUpdate, verb, rows)
	}
	w.nodes(sc, ins.GetReturningList())
}

// mergeStmt: ROW EXCLUSIVE on the target and FOR UPDATE on the target rows
// it matches; the source is only read.
func (w *walker) mergeStmt(sc *scope, m *pg_query.MergeStmt) {
	const verb = "MERGE"
	sc = w.withClause(sc, m.GetWithClause())
	target := tableName(m.GetRelation())
	w.addTable(target, RowExclusive, Block, true, verb)
	w.fromItem(sc, m.GetSourceRelation(), &level{verb: verb})
	w.node(sc, m.GetJoinCondition())
	w.nodes(sc, m.GetMergeWhenClauses())
	// The rows MERGE matches depend on its source; they are not judged.
	w.addRow(target, ForUpdate, verb, RowSet{})
}

// refName is how a statement refers to its target relation: its alias, or
// its name.
func refName(rv *pg_query.RangeVar) string {
	if a := rv.GetAlias().GetAliasname(); a != "" {
		return a
	}
	return rv.GetRelname()
}

// relations counts the relations a FROM list reads (a join counts each side).
func relations(from []*pg_query.Node) int {
	n := 0
	for _, f := range from {
		if j := f.GetJoinExpr(); j != nil {
			n += relations([]*pg_query.Node{j.GetLarg(), j.GetRarg()})
			continue
		}
		n++
	}
	return n
}

// perRowAdvisory describes the rows of an advisory lock called in the target
// list of a query that reads a table (SELECT pg_advisory_xact_lock(id) FROM
// t WHERE ...): it is taken once per row, in the order the rows come out.
// Rows read from a CTE or sub-select come out in its order, or are one.
func (w *walker) perRowAdvisory(sc *scope, s *pg_query.SelectStmt, effects []Effect, pred predicate) {
	from := s.GetFromClause()
	if len(from) == 0 {
		return
	}
	rv := from[0].GetRangeVar()
	table, ref := tableName(rv), refName(rv)
	rows := pred.rowSet(table, ref)
	if rows.Multi && rows.Order == "" && (rv == nil || rv.GetSchemaname() == "" && sc.isCTE(rv.GetRelname())) {
		one, order := sourceRows(sc, s, 0)
		if one {
			rows = RowSet{}
		}
		rows.Order = order
	}
	for i := range effects {
		if effects[i].Kind == Acquire && effects[i].Lock.Kind == Advisory {
			effects[i].Rows = rows
		}
	}
}

// insertedRows describes the rows an INSERT ... ON CONFLICT DO UPDATE may
// lock: one per VALUES row, or one per row of its SELECT, in the order the
// SELECT yields them.
func insertedRows(sc *scope, src *pg_query.Node) RowSet {
	s := src.GetSelectStmt()
	if s == nil {
		return RowSet{}
	}
	if vals := s.GetValuesLists(); len(vals) > 1 {
		return RowSet{Multi: true, Why: whyValues}
	}
	one, order := sourceRows(sc, s, 0)
	if one {
		return RowSet{}
	}
	return RowSet{Multi: true, Why: whySelect, Order: order}
}

// conflictParams lists, as RowSet.EqParams does, the columns of an
// upsert's conflict target that every inserted row fills with the same
// parameter: INSERT INTO events (task_id, key) SELECT $1, k FROM input ON
// CONFLICT (task_id, key) gives "task_id=1". The rows the upsert locks
// conflict with an inserted row on those columns, so they hold that value
// too. A column outside the conflict target says nothing of the row that
// conflicts.
func conflictParams(ins *pg_query.InsertStmt) string {
	target := map[string]bool{}
	for _, e := range ins.GetOnConflictClause().GetInfer().GetIndexElems() {
		if name := e.GetIndexElem().GetName(); name != "" {
			target[name] = true
		}
	}
	s := ins.GetSelectStmt().GetSelectStmt()
	if len(target) == 0 || s == nil || s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return ""
	}
	// The expression each row gives column i.
	column := func(i int) []*pg_query.Node {
		if vals := s.GetValuesLists(); len(vals) > 0 {
			var out []*pg_query.Node
			for _, row := range vals {
				items := row.GetList().GetItems()
				if i >= len(items) {
					return nil
				}
				out = append(out, items[i])
			}
			return out
		}
		tl := s.GetTargetList()
		if i >= len(tl) || tl[i].GetResTarget() == nil {
			return nil
		}
		return []*pg_query.Node{tl[i].GetResTarget().GetVal()}
	}
	var out []string
	for i, c := range ins.GetCols() {
		name := c.GetResTarget().GetName()
		if !target[name] {
			continue
		}
		param := 0
		for _, v := range column(i) {
			n := paramNumber(v)
			if n == 0 || param != 0 && n != param {
				param = -1
				break
			}
			param = n
		}
		if param > 0 {
			out = append(out, name+"="+strconv.Itoa(param))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// maxSourceDepth bounds how many CTEs and sub-selects sourceRows follows (a
// recursive CTE reads itself).
const maxSourceDepth = 8

// sourceRows says how many rows, and in what order, a query that feeds an
// INSERT yields. One at most: a SELECT without FROM (of no set-returning
// function), one VALUES row, LIMIT 1, or a level that filters, groups or
// de-duplicates the rows of such a CTE or sub-select. Otherwise several, in
// the order of the level's ORDER BY or, when it reads one CTE or sub-select
// and only filters it, in that query's order: PostgreSQL does not flatten a
// sub-query that has an ORDER BY, and scanning it keeps the sorted order.
func sourceRows(sc *scope, s *pg_query.SelectStmt, depth int) (one bool, order string) {
	if s == nil || depth > maxSourceDepth {
		return false, ""
	}
	order = sortText(s.GetSortClause())
	if vals := s.GetValuesLists(); vals != nil {
		return len(vals) == 1, order
	}
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return false, order
	}
	if isLimitOne(s.GetLimitCount()) {
		return true, order
	}
	if setReturning(s.GetTargetList()) {
		return false, order
	}
	from := s.GetFromClause()
	if len(from) == 0 {
		return true, order
	}
	if len(from) > 1 {
		return false, order
	}
	sc = cteScope(sc, s.GetWithClause())
	var inner *pg_query.Node
	if rs := from[0].GetRangeSubselect(); rs != nil {
		inner = rs.GetSubquery()
	} else if rv := from[0].GetRangeVar(); rv != nil && rv.GetSchemaname() == "" {
		inner = sc.cteQuery(rv.GetRelname())
	}
	if inner == nil {
		return false, order
	}
	innerOne, innerOrder := sourceRows(sc, inner.GetSelectStmt(), depth+1)
	if order == "" && len(s.GetGroupClause()) == 0 && len(s.GetDistinctClause()) == 0 && !windowed(s.GetTargetList()) {
		order = innerOrder
	}
	return innerOne, order
}

// windowed reports whether a target list calls a window function, whose
// evaluation sorts the rows by its own window.
func windowed(targets []*pg_query.Node) bool {
	for _, t := range targets {
		if fc := t.GetResTarget().GetVal().GetFuncCall(); fc != nil && fc.GetOver() != nil {
			return true
		}
	}
	return false
}

// setReturning reports whether a target list calls a function that returns
// several rows (SELECT unnest($1::bigint[]), 1): the SELECT then yields one
// row per element even without a FROM list.
func setReturning(targets []*pg_query.Node) bool {
	for _, t := range targets {
		if fc := t.GetResTarget().GetVal().GetFuncCall(); fc != nil && setReturningFunc(fc) {
			return true
		}
	}
	return false
}

// setReturningFunc reports whether a function call returns several rows
// (unnest, generate_series, the JSON array expanders, ...).
func setReturningFunc(fc *pg_query.FuncCall) bool {
	switch funcName(fc.GetFuncname()) {
	case "unnest", "generate_series", "json_array_elements", "jsonb_array_elements",
		"json_array_elements_text", "jsonb_array_elements_text", "json_to_recordset",
		"jsonb_to_recordset", "json_populate_recordset", "jsonb_populate_recordset",
		"regexp_split_to_table", "string_to_table":
		return true
	}
	return false
}
