package lockmodel

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ParamColumns names, for each $n of a SQL string that is compared with,
// assigned to or inserted into a column, that column: "id" for WHERE id =
// $1, "reconciled_at_new" for SET reconciled_at = $2, "id_list" for id =
// ANY($3). Reproducers name their psql variables after them, so that two
// statements share a variable only when they mean the same column. A
// string that does not parse yields nil.
func ParamColumns(sql string) map[int]string {
	cols := ParamColumnsOf(sql)
	if cols == nil {
		return nil
	}
	out := make(map[int]string, len(cols))
	for n, c := range cols {
		out[n] = c.Name
	}
	return out
}

// Column is a parameter's column: its name as ParamColumns gives it, and
// the table it belongs to when the statement says ("" when it does not:
// an unqualified column of a join).
type Column struct {
	Table, Name string
}

// ParamColumnsOf is ParamColumns with each column's table: the table of
// the statement or sub-select the comparison is in, so that "WHERE name =
// $2" inside "(SELECT rate FROM plans WHERE name = $2)" is plans.name,
// whatever table the outer statement updates.
func ParamColumnsOf(sql string) map[int]Column {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil
	}
	out := map[int]Column{}
	for _, raw := range tree.GetStmts() {
		paramCols(raw.GetStmt().ProtoReflect().Interface(), out, paramScope{})
	}
	return out
}

// paramScope is the tables a column reference can name: by name or alias, and
// the one an unqualified column belongs to when the FROM list has one
// table.
type paramScope struct {
	byName map[string]string
	only   string
}

// enter returns the scope inside a statement or sub-select with the
// given tables (its target and FROM list); a statement without tables
// (VALUES, a sub-select over a function) keeps the outer scope.
func (sc paramScope) enter(tables []*pg_query.RangeVar) paramScope {
	if len(tables) == 0 {
		return sc
	}
	in := paramScope{byName: map[string]string{}}
	for _, rv := range tables {
		in.byName[rv.GetRelname()] = rv.GetRelname()
		if a := rv.GetAlias().GetAliasname(); a != "" {
			in.byName[a] = rv.GetRelname()
		}
	}
	if len(tables) == 1 {
		in.only = tables[0].GetRelname()
	}
	return in
}

// rangeVars returns the plain tables of a FROM list, joins included.
func rangeVars(nodes []*pg_query.Node) []*pg_query.RangeVar {
	var out []*pg_query.RangeVar
	for _, n := range nodes {
		switch {
		case n.GetRangeVar() != nil:
			out = append(out, n.GetRangeVar())
		case n.GetJoinExpr() != nil:
			j := n.GetJoinExpr()
			out = append(out, rangeVars([]*pg_query.Node{j.GetLarg(), j.GetRarg()})...)
		}
	}
	return out
}

// paramCols walks m and records the column of each parameter it meets.
func paramCols(m proto.Message, out map[int]Column, sc paramScope) {
	set := func(n *pg_query.Node, col Column) {
		if p := paramNumber(n); p > 0 && col.Name != "" {
			if _, ok := out[p]; !ok {
				out[p] = col
			}
		}
	}
	colOf := func(n *pg_query.Node) Column {
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.GetArg()
		}
		cr := n.GetColumnRef()
		if cr == nil {
			return Column{}
		}
		f := cr.GetFields()
		if len(f) == 0 {
			return Column{}
		}
		c := Column{Name: f[len(f)-1].GetString_().GetSval(), Table: sc.only}
		if len(f) >= 2 {
			c.Table = sc.byName[f[len(f)-2].GetString_().GetSval()]
		}
		return c
	}
	suffixed := func(c Column, suffix string) Column {
		if c.Name != "" {
			c.Name += suffix
		}
		return c
	}
	switch x := m.(type) {
	case *pg_query.SelectStmt:
		sc = sc.enter(rangeVars(x.GetFromClause()))
	case *pg_query.DeleteStmt:
		sc = sc.enter(append([]*pg_query.RangeVar{x.GetRelation()}, rangeVars(x.GetUsingClause())...))
	case *pg_query.A_Expr:
		switch x.GetKind() {
		case pg_query.A_Expr_Kind_AEXPR_OP:
			set(x.GetRexpr(), colOf(x.GetLexpr()))
			set(x.GetLexpr(), colOf(x.GetRexpr()))
		case pg_query.A_Expr_Kind_AEXPR_OP_ANY:
			set(x.GetRexpr(), suffixed(colOf(x.GetLexpr()), "_list"))
		case pg_query.A_Expr_Kind_AEXPR_IN:
			c := colOf(x.GetLexpr())
			for _, item := range x.GetRexpr().GetList().GetItems() {
				set(item, c)
			}
		}
	case *pg_query.UpdateStmt:
		sc = sc.enter(append([]*pg_query.RangeVar{x.GetRelation()}, rangeVars(x.GetFromClause())...))
		for _, t := range x.GetTargetList() {
			rt := t.GetResTarget()
			// The new value of a column is not the value that picks
			// the row (SET id = $2 WHERE id = $1).
			set(rt.GetVal(), Column{Table: x.GetRelation().GetRelname(), Name: rt.GetName() + "_new"})
		}
	case *pg_query.InsertStmt:
		var cols []string
		for _, c := range x.GetCols() {
			cols = append(cols, c.GetResTarget().GetName())
		}
		for _, row := range x.GetSelectStmt().GetSelectStmt().GetValuesLists() {
			for i, v := range row.GetList().GetItems() {
				if i < len(cols) {
					set(v, Column{Table: x.GetRelation().GetRelname(), Name: cols[i]})
				}
			}
		}
	}
	pm := m.ProtoReflect()
	pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := range l.Len() {
				paramCols(l.Get(i).Message().Interface(), out, sc)
			}
		case fd.Message() != nil && !fd.IsMap():
			paramCols(v.Message().Interface(), out, sc)
		}
		return true
	})
}

// ResultColumns names the result columns of a single SELECT (or of the
// RETURNING list of a single INSERT, UPDATE or DELETE), in order: the
// column a plain or qualified column reference reads, or its alias; ""
// for an expression without one and for *. A string that does not parse,
// or holds several statements, yields nil.
func ResultColumns(sql string) []string {
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return nil
	}
	var targets []*pg_query.Node
	switch st := tree.GetStmts()[0].GetStmt(); {
	case st.GetSelectStmt() != nil:
		targets = st.GetSelectStmt().GetTargetList()
	case st.GetInsertStmt() != nil:
		targets = st.GetInsertStmt().GetReturningList()
	case st.GetUpdateStmt() != nil:
		targets = st.GetUpdateStmt().GetReturningList()
	case st.GetDeleteStmt() != nil:
		targets = st.GetDeleteStmt().GetReturningList()
	}
	out := make([]string, 0, len(targets))
	for _, t := range targets {
		rt := t.GetResTarget()
		name := rt.GetName()
		if cr := rt.GetVal().GetColumnRef(); name == "" && cr != nil {
			if f := cr.GetFields(); len(f) > 0 {
				name = f[len(f)-1].GetString_().GetSval()
			}
		}
		out = append(out, name)
	}
	return out
}
