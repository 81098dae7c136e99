package lockmodel

import (
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// maxCascade bounds how far cascades are followed: a chain of ON DELETE
// CASCADE through more tables than this is rare, and a cycle of foreign
// keys must not make the analysis loop.
const maxCascade = 8

// withSchema adds to the effects of one statement the locks that the
// schema s implies (see Schema): it runs after statementEffects, on the
// same parse tree, so that without a schema nothing changes.
func withSchema(s *Schema, stmt int, n *pg_query.Node, effs []Effect) []Effect {
	return withSchemaAt(s, stmt, n, effs, 0)
}

// withSchemaAt is withSchema for a statement run depth calls deep inside
// the schema's functions and triggers; it adds the locks of the triggers
// the statement fires.
func withSchemaAt(s *Schema, stmt int, n *pg_query.Node, effs []Effect, depth int) []Effect {
	if s == nil {
		return effs
	}
	for _, dml := range dmlNodes(n) {
		switch d := dml.GetNode().(type) {
		case *pg_query.Node_InsertStmt:
			var cols []string
			for _, c := range d.InsertStmt.GetCols() {
				cols = append(cols, c.GetResTarget().GetName())
			}
			effs = append(effs, s.parentChecks(stmt, tableName(d.InsertStmt.GetRelation()), cols, insertedParams(d.InsertStmt, cols), "INSERT")...)
			effs = append(effs, s.triggerEffects(stmt, tableName(d.InsertStmt.GetRelation()), evInsert, cols, depth)...)
			if oc := d.InsertStmt.GetOnConflictClause(); oc != nil && oc.GetAction() == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
				var set []string
				for _, c := range oc.GetTargetList() {
					set = append(set, c.GetResTarget().GetName())
				}
				effs = append(effs, s.triggerEffects(stmt, tableName(d.InsertStmt.GetRelation()), evUpdate, set, depth)...)
			}
		case *pg_query.Node_UpdateStmt:
			target := tableName(d.UpdateStmt.GetRelation())
			var cols []string
			for _, c := range d.UpdateStmt.GetTargetList() {
				cols = append(cols, c.GetResTarget().GetName())
			}
			if slices.ContainsFunc(cols, func(c string) bool { return s.IsKeyColumn(target, c) }) {
				// An UPDATE of a key column locks the row FOR UPDATE
				// (pg-lock-facts §4, statements 7 and 8).
				for i, e := range effs {
					if e.Kind == Acquire && e.Lock.Kind == Row && e.Lock.Table == target && e.Verb == "UPDATE" && e.Lock.Mode == ForNoKeyUpdate {
						effs[i].Lock.Mode = ForUpdate
						effs[i].Verb = "UPDATE of a key column"
					}
				}
			}
			set := map[string]int{}
			for _, c := range d.UpdateStmt.GetTargetList() {
				if n := c.GetResTarget().GetVal().GetParamRef().GetNumber(); n > 0 {
					set[c.GetResTarget().GetName()] = int(n)
				}
			}
			effs = append(effs, s.parentChecks(stmt, target, cols, set, "UPDATE")...)
			effs = append(effs, s.cascades(stmt, target, cols, false, 0, map[string]bool{target: true})...)
			effs = append(effs, s.triggerEffects(stmt, target, evUpdate, cols, depth)...)
		case *pg_query.Node_DeleteStmt:
			target := tableName(d.DeleteStmt.GetRelation())
			effs = append(effs, s.cascades(stmt, target, nil, true, 0, map[string]bool{target: true})...)
			effs = append(effs, s.triggerEffects(stmt, target, evDelete, nil, depth)...)
		}
	}
	return effs
}

// dmlNodes returns the INSERT, UPDATE and DELETE of a statement: the
// statement itself and the data-modifying CTEs of its WITH clause.
func dmlNodes(n *pg_query.Node) []*pg_query.Node {
	var with *pg_query.WithClause
	switch s := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		with = s.SelectStmt.GetWithClause()
	case *pg_query.Node_InsertStmt:
		with = s.InsertStmt.GetWithClause()
	case *pg_query.Node_UpdateStmt:
		with = s.UpdateStmt.GetWithClause()
	case *pg_query.Node_DeleteStmt:
		with = s.DeleteStmt.GetWithClause()
	}
	var out []*pg_query.Node
	for _, c := range with.GetCtes() {
		out = append(out, dmlNodes(c.GetCommonTableExpr().GetCtequery())...)
	}
	switch n.GetNode().(type) {
	case *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt, *pg_query.Node_DeleteStmt:
		out = append(out, n)
	}
	return out
}

// parentChecks returns the locks of the foreign-key checks of a child row
// written with the given columns (nil: every column, as INSERT without a
// column list): ROW SHARE on the parent table and FOR KEY SHARE on the
// parent row (pg-lock-facts T5a, T8s).
//
// params are the $n written to child columns, for one row: the parent row
// of a one-column key written from $n is the one whose key equals $n, as
// for SELECT ... WHERE id = $n, so a lock of that row the transaction holds
// already is seen to cover the check.
func (s *Schema) parentChecks(stmt int, child string, cols []string, params map[string]int, verb string) []Effect {
	refs, _ := s.ForeignKeys(child)
	var out []Effect
	for _, fk := range refs {
		if cols != nil && !intersects(fk.ChildCols, cols) {
			continue
		}
		v := verb + " (foreign key check on " + fk.Parent + ")"
		row := rowEffect(stmt, fk.Parent, ForKeyShare, Block, v)
		pcols := fk.ParentCols
		if len(pcols) == 0 {
			pcols = s.lookup(fk.Parent).primary
		}
		if n := params[singleOrEmpty(fk.ChildCols)]; n > 0 && len(pcols) == 1 {
			col := pcols[0]
			row.Rows = RowSet{KeyParam: n, KeyColumn: col, EqColumns: col, EqParams: col + "=" + strconv.Itoa(n), GateShape: col + "=$"}
		}
		out = append(out,
			Effect{Kind: Acquire, Lock: Lock{Kind: Table, Table: fk.Parent, Mode: RowShare, Implicit: true}, Stmt: stmt, Verb: v},
			row)
	}
	return out
}

// singleOrEmpty returns the one column of cols, or "" when there are
// several.
func singleOrEmpty(cols []string) string {
	if len(cols) != 1 {
		return ""
	}
	return cols[0]
}

// insertedParams maps the columns of an INSERT of one VALUES row to the $n
// written to them.
func insertedParams(ins *pg_query.InsertStmt, cols []string) map[string]int {
	values := ins.GetSelectStmt().GetSelectStmt().GetValuesLists()
	if len(values) != 1 {
		return nil
	}
	out := map[string]int{}
	for i, v := range values[0].GetList().GetItems() {
		if n := v.GetParamRef().GetNumber(); n > 0 && i < len(cols) {
			out[cols[i]] = int(n)
		}
	}
	return out
}

// cascades returns the locks on child rows that deleting parent rows (del)
// or changing their columns cols takes through ON DELETE / ON UPDATE
// actions: a cascaded delete locks the child rows FOR UPDATE; a cascaded
// update or SET NULL / SET DEFAULT updates them (FOR UPDATE when the child's
// columns are a key of the child, else FOR NO KEY UPDATE). Cascades go on
// through the children's own children.
func (s *Schema) cascades(stmt int, parent string, cols []string, del bool, depth int, seen map[string]bool) []Effect {
	if depth >= maxCascade {
		return nil
	}
	_, referencedBy := s.ForeignKeys(parent)
	var out []Effect
	for _, fk := range referencedBy {
		act := fk.OnUpdate
		if del {
			act = fk.OnDelete
		} else {
			pcols := fk.ParentCols
			if len(pcols) == 0 {
				pcols = s.lookup(parent).primary
			}
			if !intersects(pcols, cols) {
				continue
			}
		}
		if !act.changesChild() || seen[fk.Child] {
			continue
		}
		verb := "UPDATE (ON UPDATE action of " + fk.Child + ")"
		mode := ForNoKeyUpdate
		if slices.ContainsFunc(fk.ChildCols, func(c string) bool { return s.IsKeyColumn(fk.Child, c) }) {
			mode = ForUpdate
		}
		childDel := del && act == Cascade
		switch {
		case childDel:
			verb, mode = "DELETE (ON DELETE CASCADE of "+fk.Child+")", ForUpdate
		case del:
			verb = "UPDATE (ON DELETE action of " + fk.Child + ")"
		}
		out = append(out,
			Effect{Kind: Acquire, Lock: Lock{Kind: Table, Table: fk.Child, Mode: RowExclusive, Implicit: true}, Stmt: stmt, Verb: verb},
			rowEffect(stmt, fk.Child, mode, Block, verb))
		seen[fk.Child] = true
		out = append(out, s.cascades(stmt, fk.Child, fk.ChildCols, childDel, depth+1, seen)...)
		delete(seen, fk.Child)
	}
	return out
}

func intersects(a, b []string) bool {
	return slices.ContainsFunc(a, func(c string) bool { return slices.Contains(b, c) })
}
