package lockmodel

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// walker collects the effects of one statement.
//
// PostgreSQL takes every table lock of a statement while it parses and plans
// it, before it reads or locks a single row, so the table locks are kept
// apart from the row locks and advisory calls, which happen as the statement
// runs.
type walker struct {
	stmt   int
	tables []Effect // Acquire effects of table locks, by first appearance
	others []Effect // row locks and advisory effects, in execution order
	// tries says where the result of each try-lock call of the
	// top-level SELECT goes (see TryUse).
	tries map[*pg_query.FuncCall]tryPlace
	// depth is how many calls of the schema's functions and triggers deep
	// the statement runs (see routines.go).
	depth int
	// schema is the schema the statement runs against (nil: none
	// known), for the rows its keys single out and the functions it
	// calls.
	schema *Schema
}

// effects returns the statement's effects: table locks first, then the rest.
func (w *walker) effects() []Effect {
	if len(w.tables)+len(w.others) == 0 {
		return nil
	}
	return slices.Concat(w.tables, w.others)
}

// addTable records a table lock. A statement that mentions a table several
// times (a self-join, an UPDATE whose WHERE reads its own target) is
// summarised by its strongest mode, at the table's first appearance; modes
// that do not cover each other (SHARE and ROW EXCLUSIVE) are kept apart.
func (w *walker) addTable(table string, mode Mode, wait WaitPolicy, implicit bool, verb string) {
	if table == "" {
		return
	}
	e := Effect{
		Kind: Acquire,
		Lock: Lock{Kind: Table, Table: table, Mode: mode, Wait: wait, Implicit: implicit},
		Stmt: w.stmt,
		Verb: verb,
	}
	first := -1
	for i, old := range w.tables {
		if old.Lock.Table != table {
			continue
		}
		if covers(old.Lock.Mode, mode) {
			return
		}
		if first < 0 && covers(mode, old.Lock.Mode) {
			first = i
		}
	}
	if first < 0 {
		w.tables = append(w.tables, e)
		return
	}
	// Replace the first weaker entry and drop any later ones. Entries
	// before it are neither weaker nor stronger, or first would be lower.
	w.tables[first] = e
	kept := w.tables[:first+1]
	for _, old := range w.tables[first+1:] {
		if old.Lock.Table != table || !covers(mode, old.Lock.Mode) {
			kept = append(kept, old)
		}
	}
	w.tables = kept
}

// addRow records a row lock that a data-modifying statement takes as it
// runs; such locks always wait.
func (w *walker) addRow(table string, mode Mode, verb string, rows RowSet) {
	if table == "" {
		return
	}
	e := rowEffect(w.stmt, table, mode, Block, verb)
	e.Rows = rows
	w.others = append(w.others, e)
}

func rowEffect(stmt int, table string, mode Mode, wait WaitPolicy, verb string) Effect {
	return Effect{
		Kind: Acquire,
		Lock: Lock{Kind: Row, Table: table, Mode: mode, Wait: wait},
		Stmt: stmt,
		Verb: verb,
	}
}

// scope lists the names of the common table expressions visible at a point
// of the query: a FROM item with such a name reads the CTE, not a table.
type scope struct {
	names []string
	// queries are the CTEs' queries, one per name.
	queries []*pg_query.Node
	parent  *scope
}

func (s *scope) isCTE(name string) bool {
	return s.cteQuery(name) != nil
}

// cteQuery returns the query of the CTE called name visible in the scope, or
// nil.
func (s *scope) cteQuery(name string) *pg_query.Node {
	for ; s != nil; s = s.parent {
		if i := slices.Index(s.names, name); i >= 0 {
			return s.queries[i]
		}
	}
	return nil
}

// tableName returns the name of the relation as Lock.Table spells it:
// schema-qualified unless the schema is public (the default search_path), so
// that public.t and t are the same table.
func tableName(rv *pg_query.RangeVar) string {
	if rv == nil {
		return ""
	}
	return qualify(rv.GetSchemaname(), rv.GetRelname())
}

func qualify(schema, rel string) string {
	if rel == "" {
		return ""
	}
	if schema == "" || schema == "public" {
		return rel
	}
	return schema + "." + rel
}

// nodeOneof is the oneof of pg_query.Node that holds the actual node. The
// walk reads it directly instead of testing each of Node's ~250 fields.
var nodeOneof = (&pg_query.Node{}).ProtoReflect().Descriptor().Oneofs().ByName("node")

// nodes walks a list of nodes in order.
func (w *walker) nodes(sc *scope, ns []*pg_query.Node) {
	for _, n := range ns {
		w.node(sc, n)
	}
}

// node walks one expression or statement node of any type.
func (w *walker) node(sc *scope, n *pg_query.Node) {
	if n == nil {
		return
	}
	w.message(sc, n)
}

// message dispatches on the node type. The statements that lock rows and the
// function calls that may be advisory locks are handled wherever they occur;
// every other node is searched field by field (through protobuf reflection,
// so new node types in the parser need no code here).
func (w *walker) message(sc *scope, m proto.Message) {
	switch m := m.(type) {
	case *pg_query.Node:
		pm := m.ProtoReflect()
		if fd := pm.WhichOneof(nodeOneof); fd != nil {
			w.message(sc, pm.Get(fd).Message().Interface())
		}
	case *pg_query.SelectStmt:
		w.selectStmt(sc, m, rowLockReq{})
	case *pg_query.InsertStmt:
		w.insertStmt(sc, m)
	case *pg_query.UpdateStmt:
		w.updateStmt(sc, m)
	case *pg_query.DeleteStmt:
		w.deleteStmt(sc, m)
	case *pg_query.MergeStmt:
		w.mergeStmt(sc, m)
	case *pg_query.FuncCall:
		w.funcCall(sc, m)
	case *pg_query.RangeVar:
		// A relation outside a FROM list (SELECT INTO's new table, a
		// locking clause's OF list) is not read.
	default:
		w.children(sc, m)
	}
}

// children walks every message-valued field of m in field-number order,
// which is the order of the C struct and close to the order of the SQL text.
func (w *walker) children(sc *scope, m proto.Message) {
	pm := m.ProtoReflect()
	if !pm.IsValid() {
		return
	}
	fields := pm.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.IsMap() || !pm.Has(fd) {
			continue
		}
		v := pm.Get(fd)
		if !fd.IsList() {
			w.message(sc, v.Message().Interface())
			continue
		}
		w.list(sc, v.List())
	}
}

func (w *walker) list(sc *scope, l protoreflect.List) {
	for i := range l.Len() {
		w.message(sc, l.Get(i).Message().Interface())
	}
}

// withClause walks the CTEs of a WITH clause in order and returns the scope
// in which the query that owns the clause sees them. A non-recursive CTE
// sees only the CTEs before it; in WITH RECURSIVE every CTE sees them all.
func (w *walker) withClause(sc *scope, wc *pg_query.WithClause) *scope {
	if wc == nil || len(wc.GetCtes()) == 0 {
		return sc
	}
	all := cteScope(sc, wc)
	for i, n := range wc.GetCtes() {
		visible := &scope{names: all.names[:i:i], queries: all.queries[:i:i], parent: sc}
		if wc.GetRecursive() {
			visible = all
		}
		cte := n.GetCommonTableExpr()
		if cte == nil {
			w.node(sc, n)
			continue
		}
		w.query(visible, cte.GetCtequery(), rowLockReq{})
	}
	return all
}

// cteScope is the scope in which the query that owns a WITH clause sees its
// CTEs.
func cteScope(sc *scope, wc *pg_query.WithClause) *scope {
	if wc == nil || len(wc.GetCtes()) == 0 {
		return sc
	}
	out := &scope{parent: sc}
	for _, n := range wc.GetCtes() {
		cte := n.GetCommonTableExpr()
		out.names = append(out.names, cte.GetCtename())
		out.queries = append(out.queries, cte.GetCtequery())
	}
	return out
}

// query walks a sub-query. inherited is the locking clause of an enclosing
// query that reaches into it (SELECT ... FROM (sub-select) s FOR UPDATE).
func (w *walker) query(sc *scope, n *pg_query.Node, inherited rowLockReq) {
	if s := n.GetSelectStmt(); s != nil {
		w.selectStmt(sc, s, inherited)
		return
	}
	w.node(sc, n)
}
