package lockmodel

import (
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The database's own code takes locks too: a function called by `SELECT
// f($1)`, `PERFORM f()` in another function, `CALL p()`, or in `INSERT ...
// VALUES (f(...))`, and a trigger fired by an INSERT, UPDATE [OF col] or
// DELETE on its table. With a schema that defines them, a statement's
// effects include those of the bodies it runs, in order, where it runs
// them: a function's where it is called, a trigger's after the row locks
// of the statement that fires it (PostgreSQL locks the row before its
// BEFORE ROW UPDATE/DELETE triggers run). Bodies are read as written:
// LANGUAGE sql statements, and the SQL of every PL/pgSQL statement
// (pg_query's PL/pgSQL parser), both branches of an IF, and EXECUTE of
// constant text. Calls nest up to maxRoutineDepth deep. A trigger's WHEN
// condition is taken to hold. Effects from bodies carry no row-set
// information: the row-order rules judge the Go code's own statements.

// maxRoutineDepth bounds how deep calls of functions and triggers are
// followed (recursion included).
const maxRoutineDepth = 4

// Routine is a function or procedure of the schema.
type Routine struct {
	// Name is the name as calls spell it (schema-qualified unless in
	// public), Language "sql" or "plpgsql" (others take no locks the
	// model reads).
	Name, Language string
	// Source is the CREATE FUNCTION/PROCEDURE statement, Body the text
	// of its AS clause.
	Source, Body string
	// Params are the names of the arguments a call passes, in order
	// ("" for an unnamed one), lower-cased.
	Params []string

	once    sync.Once
	queries []string
}

// Trigger is a trigger of the schema.
type Trigger struct {
	Name, Table, Func string
	// Events is a mask of evInsert, evUpdate, evDelete; Columns the
	// columns of UPDATE OF (none: any update).
	Events  int
	Columns []string
	// Source is the CREATE TRIGGER statement.
	Source string
	// Transition are the names of its transition tables (REFERENCING
	// NEW TABLE AS new_rows): private to one firing, never locked by
	// anyone else.
	Transition []string
}

// Trigger events, as pg_query's CreateTrigStmt.Events spells them.
const (
	evInsert = 1 << 2
	evDelete = 1 << 3
	evUpdate = 1 << 4
)

func (s *Schema) routineCount() int { return len(s.routines) }

func (s *Schema) triggerCount() int {
	n := 0
	for _, ts := range s.triggers {
		n += len(ts)
	}
	return n
}

// createFunction records CREATE [OR REPLACE] FUNCTION/PROCEDURE; a later
// definition replaces an earlier one.
func (s *Schema) createFunction(f *pg_query.CreateFunctionStmt, source string) {
	name := routineName(funcName(f.GetFuncname()))
	r := &Routine{Name: name, Source: source}
	for _, p := range f.GetParameters() {
		fp := p.GetFunctionParameter()
		switch fp.GetMode() {
		case pg_query.FunctionParameterMode_FUNC_PARAM_OUT, pg_query.FunctionParameterMode_FUNC_PARAM_TABLE:
			continue // not passed by the caller
		}
		r.Params = append(r.Params, strings.ToLower(fp.GetName()))
	}
	for _, o := range f.GetOptions() {
		d := o.GetDefElem()
		switch d.GetDefname() {
		case "language":
			r.Language = strings.ToLower(d.GetArg().GetString_().GetSval())
		case "as":
			if items := d.GetArg().GetList().GetItems(); len(items) > 0 {
				r.Body = items[0].GetString_().GetSval()
			}
		}
	}
	if r.Body == "" && f.GetSqlBody() != nil {
		// BEGIN ATOMIC ... END: the source holds the statements.
		r.Language = "sql-atomic"
	}
	s.routines[name] = r
}

// routineName drops the public schema, as tables' names do.
func routineName(name string) string { return strings.TrimPrefix(name, "public.") }

// createTrigger records CREATE [OR REPLACE] TRIGGER.
func (s *Schema) createTrigger(t *pg_query.CreateTrigStmt, source string) {
	table := tableName(t.GetRelation())
	tr := &Trigger{
		Name: t.GetTrigname(), Table: table, Func: routineName(funcName(t.GetFuncname())),
		Events: int(t.GetEvents()), Columns: names(t.GetColumns()), Source: source,
	}
	for _, rel := range t.GetTransitionRels() {
		if name := rel.GetTriggerTransition().GetName(); name != "" {
			tr.Transition = append(tr.Transition, name)
		}
	}
	s.triggers[table] = slices.DeleteFunc(s.triggers[table], func(o *Trigger) bool { return o.Name == tr.Name })
	s.triggers[table] = append(s.triggers[table], tr)
}

// drop handles DROP FUNCTION/PROCEDURE/TRIGGER.
func (s *Schema) drop(d *pg_query.DropStmt) {
	switch d.GetRemoveType() {
	case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_PROCEDURE:
		for _, o := range d.GetObjects() {
			if ow := o.GetObjectWithArgs(); ow != nil {
				delete(s.routines, routineName(funcName(ow.GetObjname())))
			}
		}
	case pg_query.ObjectType_OBJECT_TRIGGER:
		for _, o := range d.GetObjects() {
			items := o.GetList().GetItems()
			if len(items) < 2 {
				continue
			}
			var parts []string
			for _, p := range items {
				parts = append(parts, p.GetString_().GetSval())
			}
			table := qualify(strings.Join(parts[:len(parts)-2], "."), parts[len(parts)-2])
			name := parts[len(parts)-1]
			s.triggers[table] = slices.DeleteFunc(s.triggers[table], func(t *Trigger) bool { return t.Name == name })
		}
	}
}

// routine returns the schema's routine called name, or nil.
func (s *Schema) routine(name string) *Routine {
	if s == nil {
		return nil
	}
	return s.routines[routineName(name)]
}

// callEffects returns the effects of calling the schema's routine name
// with args in statement stmt, depth calls deep; none for an unknown
// function.
func (s *Schema) callEffects(stmt int, name string, args []*pg_query.Node, depth int) []Effect {
	r := s.routine(name)
	if r == nil || depth >= maxRoutineDepth {
		return nil
	}
	texts := make([]string, len(args))
	for i, a := range args {
		texts[i] = argText(a)
	}
	return s.bodyEffects(stmt, r, texts, depth+1, " in "+r.Name+"()")
}

// argText is the text a call's argument stands for in the body: a
// constant's canonical text, or the caller's "$n"; "" when it is known only
// at run time.
func argText(n *pg_query.Node) string {
	if c, ok := constText(n); ok {
		return c
	}
	for tc := n.GetTypeCast(); tc != nil; tc = n.GetTypeCast() {
		n = tc.GetArg()
	}
	if p := n.GetParamRef(); p != nil {
		return "$" + strconv.Itoa(int(p.GetNumber()))
	}
	return ""
}

// bindArgs rewrites a body query so that its references to the routine's
// arguments (by name, or $k in a SQL function) read what the call passes:
// an advisory key then names the caller's constant or parameter. An
// argument known only at run time becomes an unknown name, never the
// caller's $k, which is another value.
func bindArgs(q string, params, args []string) string {
	scan, err := pg_query.Scan(q)
	if err != nil {
		return q
	}
	var b strings.Builder
	last := 0
	toks := scan.GetTokens()
	for i, t := range toks {
		start, end := int(t.GetStart()), int(t.GetEnd())
		if start < last || end > len(q) {
			continue
		}
		word := q[start:end]
		k := -1
		switch t.GetToken() {
		case pg_query.Token_PARAM:
			if n, err := strconv.Atoi(word[1:]); err == nil {
				k = n - 1
			}
		case pg_query.Token_IDENT:
			qualified := i > 0 && toks[i-1].GetToken() == pg_query.Token_ASCII_46 ||
				i+1 < len(toks) && toks[i+1].GetToken() == pg_query.Token_ASCII_46
			if !qualified {
				k = slices.Index(params, strings.ToLower(word))
				if k < 0 || word == "" {
					k = -1
				}
			}
		}
		if k < 0 {
			continue
		}
		sub := "unbound_arg_" + strconv.Itoa(k+1)
		if k < len(args) && args[k] != "" {
			sub = args[k]
		}
		b.WriteString(q[last:start])
		b.WriteString(sub)
		last = end
	}
	b.WriteString(q[last:])
	return b.String()
}

// triggerEffects returns the effects of the triggers that a statement's
// event on table fires (cols: the columns an UPDATE sets).
func (s *Schema) triggerEffects(stmt int, table string, event int, cols []string, depth int) []Effect {
	if s == nil || depth >= maxRoutineDepth {
		return nil
	}
	var out []Effect
	for _, t := range s.triggers[table] {
		if t.Events&event == 0 {
			continue
		}
		if event == evUpdate && len(t.Columns) > 0 && cols != nil && !intersects(t.Columns, cols) {
			continue // UPDATE OF other columns
		}
		if r := s.routine(t.Func); r != nil {
			for _, e := range s.bodyEffects(stmt, r, nil, depth+1, " in trigger "+t.Name+" on "+table) {
				if (e.Lock.Kind == Row || e.Lock.Kind == Table) && slices.Contains(t.Transition, e.Lock.Table) {
					continue // the firing's own transition table
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// bodyEffects analyses a routine's body as statement stmt of its caller.
// A body is analysed once per call shape (arguments, depth): every
// statement that calls the function or fires the trigger reuses it.
func (s *Schema) bodyEffects(stmt int, r *Routine, args []string, depth int, where string) []Effect {
	key := r.Name + "\x00" + strings.Join(args, "\x00") + "\x00" + strconv.Itoa(depth) + where
	if v, ok := s.bodies.Load(key); ok {
		return withStmt(v.([]Effect), stmt)
	}
	effs := s.analyseBody(r, args, depth, where)
	s.bodies.Store(key, effs)
	return withStmt(effs, stmt)
}

// withStmt returns a copy of effs as effects of statement stmt.
func withStmt(effs []Effect, stmt int) []Effect {
	out := slices.Clone(effs)
	for i := range out {
		out[i].Stmt = stmt
	}
	return out
}

// analyseBody is bodyEffects without the cache, for statement 0.
func (s *Schema) analyseBody(r *Routine, args []string, depth int, where string) []Effect {
	const stmt = 0
	var out []Effect
	for _, q := range r.bodyQueries() {
		params := r.Params
		if r.Language != "plpgsql" {
			// In SQL functions a column of the same name wins over an
			// argument: only $k is surely the argument.
			params = nil
		}
		tree, err := pg_query.Parse(bindArgs(q, params, args))
		if err != nil {
			continue
		}
		for _, raw := range tree.GetStmts() {
			n := raw.GetStmt()
			for _, e := range withSchemaAt(s, stmt, n, statementEffectsAt(s, stmt, n, depth), depth) {
				switch e.Kind {
				case Acquire, Unlock, UnlockAll:
				default:
					continue // a procedure's COMMIT is not the caller's
				}
				e.Stmt = stmt
				if !strings.Contains(e.Verb, " in ") {
					e.Verb += where
				}
				e.Rows = RowSet{}
				e.Try, e.Column = TryUnseen, 0
				out = append(out, e)
			}
		}
	}
	return out
}

// bodyQueries returns the SQL a routine's body runs, in order: cached.
func (r *Routine) bodyQueries() []string {
	r.once.Do(func() {
		switch r.Language {
		case "sql":
			r.queries = []string{r.Body}
		case "sql-atomic":
			if tree, err := pg_query.Parse(r.Source); err == nil && len(tree.GetStmts()) == 1 {
				for _, st := range tree.GetStmts()[0].GetStmt().GetCreateFunctionStmt().GetSqlBody().GetList().GetItems() {
					for _, item := range st.GetList().GetItems() {
						if text, err := pg_query.Deparse(&pg_query.ParseResult{Stmts: []*pg_query.RawStmt{{Stmt: item}}}); err == nil {
							r.queries = append(r.queries, text)
						}
					}
				}
			}
		case "plpgsql":
			r.queries = plpgsqlQueries(r.Source)
		}
	})
	return r.queries
}

// assignRE matches the target of a PL/pgSQL assignment ("v := ...").
var assignRE = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_.]*\s*:=`)

// plpgsqlQueries returns, in order, the SQL of a PL/pgSQL function's
// statements: every expression and query, and the text of EXECUTE when it
// is a constant. Expressions ("v > 0", "v := (SELECT ...)") become SELECTs.
func plpgsqlQueries(source string) []string {
	js, err := pg_query.ParsePlPgSqlToJSON(source)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(js))
	var out []string
	add := func(q string, dynamic bool) {
		if dynamic {
			if c, ok := constantString(q); ok {
				out = append(out, c)
			}
			return
		}
		if loc := assignRE.FindStringIndex(q); loc != nil {
			q = q[loc[1]:]
		}
		if _, err := pg_query.Parse(q); err != nil {
			q = "SELECT " + q
		}
		out = append(out, q)
	}
	// walk reads one JSON value in document order; key is the key it is
	// the value of, expr and dynamic say whether it is inside a
	// PLpgSQL_expr and a dynamic statement (EXECUTE, FOR ... EXECUTE).
	var walk func(key string, expr, dynamic bool) error
	walk = func(key string, expr, dynamic bool) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					name, _ := k.(string)
					dyn := dynamic || strings.HasPrefix(name, "PLpgSQL_stmt_dyn") || name == "dynquery"
					if strings.HasPrefix(name, "PLpgSQL_stmt_") && !strings.HasPrefix(name, "PLpgSQL_stmt_dyn") {
						dyn = false
					}
					if err := walk(name, expr || name == "PLpgSQL_expr", dyn); err != nil {
						return err
					}
				}
			case '[':
				for dec.More() {
					if err := walk(key, expr, dynamic); err != nil {
						return err
					}
				}
			}
			_, err := dec.Token() // the closing delimiter
			return err
		case string:
			if key == "query" && expr {
				add(t, dynamic)
			}
		}
		return nil
	}
	if err := walk("", false, false); err != nil && !errors.Is(err, io.EOF) {
		return out
	}
	return out
}

// constantString returns the value of a SQL expression that is one string
// literal ('UPDATE t SET ...').
func constantString(expr string) (string, bool) {
	tree, err := pg_query.Parse("SELECT " + expr)
	if err != nil || len(tree.GetStmts()) != 1 {
		return "", false
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.GetTargetList()) != 1 || len(sel.GetFromClause()) > 0 {
		return "", false
	}
	c := sel.GetTargetList()[0].GetResTarget().GetVal().GetAConst()
	if c == nil || c.GetSval() == nil {
		return "", false
	}
	return c.GetSval().GetSval(), true
}

// orReplaceRE matches the start of a CREATE FUNCTION, PROCEDURE or TRIGGER
// statement without OR REPLACE.
var orReplaceRE = regexp.MustCompile(`(?i)^CREATE\s+(FUNCTION|PROCEDURE|TRIGGER)\b`)

// Definitions returns the CREATE statements of the schema's functions,
// procedures and triggers that running sql relies on (the functions it
// calls, the triggers its writes fire, and what their bodies call in turn),
// dependencies first, as CREATE OR REPLACE so that they can be run on a
// database that has them already. Reproducers run them before the
// sessions.
func (s *Schema) Definitions(sql string) []string {
	if s == nil || len(s.routines) == 0 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var visit func(q string, depth int)
	addRoutine := func(name string, depth int) {
		r := s.routine(name)
		if r == nil || seen["f:"+r.Name] {
			return
		}
		seen["f:"+r.Name] = true
		for _, bq := range r.bodyQueries() {
			visit(bq, depth+1)
		}
		out = append(out, orReplaceRE.ReplaceAllString(r.Source, "CREATE OR REPLACE $1"))
	}
	visit = func(q string, depth int) {
		if depth > maxRoutineDepth {
			return
		}
		tree, err := pg_query.Parse(q)
		if err != nil {
			return
		}
		for _, raw := range tree.GetStmts() {
			n := raw.GetStmt()
			for _, name := range calledFunctions(n) {
				addRoutine(name, depth)
			}
			for _, d := range dmlNodes(n) {
				table, event := "", 0
				switch x := d.GetNode().(type) {
				case *pg_query.Node_InsertStmt:
					table, event = tableName(x.InsertStmt.GetRelation()), evInsert|evUpdate
				case *pg_query.Node_UpdateStmt:
					table, event = tableName(x.UpdateStmt.GetRelation()), evUpdate
				case *pg_query.Node_DeleteStmt:
					table, event = tableName(x.DeleteStmt.GetRelation()), evDelete
				}
				for _, t := range s.triggers[table] {
					if t.Events&event == 0 || seen["t:"+table+"."+t.Name] {
						continue
					}
					seen["t:"+table+"."+t.Name] = true
					addRoutine(t.Func, depth)
					out = append(out, orReplaceRE.ReplaceAllString(t.Source, "CREATE OR REPLACE $1"))
				}
			}
		}
	}
	visit(sql, 0)
	return out
}

// calledFunctions lists the names of the functions a statement calls, in
// order.
func calledFunctions(n *pg_query.Node) []string {
	var out []string
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if fc, ok := m.Interface().(*pg_query.FuncCall); ok {
			out = append(out, funcName(fc.GetFuncname()))
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return true
		})
	}
	walk(n.ProtoReflect())
	return out
}
