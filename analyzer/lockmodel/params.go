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
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil
	}
	out := map[int]string{}
	for _, raw := range tree.GetStmts() {
		paramCols(raw.GetStmt().ProtoReflect().Interface(), out)
	}
	return out
}

// paramCols walks m and records the column of each parameter it meets.
func paramCols(m proto.Message, out map[int]string) {
	set := func(n *pg_query.Node, col string) {
		if p := paramNumber(n); p > 0 && col != "" {
			if _, ok := out[p]; !ok {
				out[p] = col
			}
		}
	}
	colName := func(n *pg_query.Node) string {
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.GetArg()
		}
		cr := n.GetColumnRef()
		if cr == nil {
			return ""
		}
		f := cr.GetFields()
		if len(f) == 0 {
			return ""
		}
		return f[len(f)-1].GetString_().GetSval()
	}
	switch x := m.(type) {
	case *pg_query.A_Expr:
		switch x.GetKind() {
		case pg_query.A_Expr_Kind_AEXPR_OP:
			set(x.GetRexpr(), colName(x.GetLexpr()))
			set(x.GetLexpr(), colName(x.GetRexpr()))
		case pg_query.A_Expr_Kind_AEXPR_OP_ANY:
			if c := colName(x.GetLexpr()); c != "" {
				set(x.GetRexpr(), c+"_list")
			}
		case pg_query.A_Expr_Kind_AEXPR_IN:
			c := colName(x.GetLexpr())
			for _, item := range x.GetRexpr().GetList().GetItems() {
				set(item, c)
			}
		}
	case *pg_query.UpdateStmt:
		for _, t := range x.GetTargetList() {
			rt := t.GetResTarget()
			// The new value of a column is not the value that picks
			// the row (SET id = $2 WHERE id = $1).
			set(rt.GetVal(), rt.GetName()+"_new")
		}
	case *pg_query.InsertStmt:
		var cols []string
		for _, c := range x.GetCols() {
			cols = append(cols, c.GetResTarget().GetName())
		}
		for _, row := range x.GetSelectStmt().GetSelectStmt().GetValuesLists() {
			for i, v := range row.GetList().GetItems() {
				if i < len(cols) {
					set(v, cols[i])
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
				paramCols(l.Get(i).Message().Interface(), out)
			}
		case fd.Message() != nil && !fd.IsMap():
			paramCols(v.Message().Interface(), out)
		}
		return true
	})
}
