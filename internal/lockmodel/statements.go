package lockmodel

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// statementEffects returns the effects of the raw statement with index stmt.
// Statements that take no lock the model cares about (SET, SHOW, CREATE
// TABLE, ...) have none.
func statementEffects(s *Schema, stmt int, n *pg_query.Node) []Effect {
	return statementEffectsAt(s, stmt, n, 0)
}

// statementEffectsAt is statementEffects for a statement run depth calls
// deep inside the database's own functions and triggers.
func statementEffectsAt(schema *Schema, stmt int, n *pg_query.Node, depth int) []Effect {
	w := &walker{stmt: stmt, tries: tryPlaces(n.GetSelectStmt()), depth: depth, schema: schema}
	switch s := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt,
		*pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt, *pg_query.Node_CallStmt:
		w.node(nil, n)
	case *pg_query.Node_LockStmt:
		w.lockStmt(s.LockStmt)
	case *pg_query.Node_TruncateStmt:
		for _, rel := range s.TruncateStmt.GetRelations() {
			w.ddl(tableName(rel.GetRangeVar()), AccessExclusive, "TRUNCATE")
		}
	case *pg_query.Node_AlterTableStmt:
		// Most ALTER TABLE forms take ACCESS EXCLUSIVE; a few take
		// less, but the strongest is the safe over-approximation.
		if s.AlterTableStmt.GetObjtype() == pg_query.ObjectType_OBJECT_TABLE {
			w.ddl(tableName(s.AlterTableStmt.GetRelation()), AccessExclusive, "ALTER TABLE")
		}
	case *pg_query.Node_RenameStmt:
		// ALTER TABLE ... RENAME [COLUMN | CONSTRAINT] is a statement
		// of its own in the parse tree.
		r := s.RenameStmt
		if r.GetRenameType() == pg_query.ObjectType_OBJECT_TABLE || r.GetRelationType() == pg_query.ObjectType_OBJECT_TABLE {
			w.ddl(tableName(r.GetRelation()), AccessExclusive, "ALTER TABLE")
		}
	case *pg_query.Node_AlterObjectSchemaStmt:
		if s.AlterObjectSchemaStmt.GetObjectType() == pg_query.ObjectType_OBJECT_TABLE {
			w.ddl(tableName(s.AlterObjectSchemaStmt.GetRelation()), AccessExclusive, "ALTER TABLE")
		}
	case *pg_query.Node_DropStmt:
		if s.DropStmt.GetRemoveType() == pg_query.ObjectType_OBJECT_TABLE {
			for _, obj := range s.DropStmt.GetObjects() {
				w.ddl(qualifiedName(obj.GetList().GetItems()), AccessExclusive, "DROP TABLE")
			}
		}
	case *pg_query.Node_IndexStmt:
		mode, verb := Share, "CREATE INDEX"
		if s.IndexStmt.GetConcurrent() {
			mode, verb = ShareUpdateExclusive, "CREATE INDEX CONCURRENTLY"
		}
		w.ddl(tableName(s.IndexStmt.GetRelation()), mode, verb)
	case *pg_query.Node_RefreshMatViewStmt:
		mode, verb := AccessExclusive, "REFRESH MATERIALIZED VIEW"
		if s.RefreshMatViewStmt.GetConcurrent() {
			mode, verb = Exclusive, "REFRESH MATERIALIZED VIEW CONCURRENTLY"
		}
		w.ddl(tableName(s.RefreshMatViewStmt.GetRelation()), mode, verb)
	case *pg_query.Node_TransactionStmt:
		return transactionEffects(stmt, s.TransactionStmt)
	case *pg_query.Node_CreateStmt:
		if rel := s.CreateStmt.GetRelation(); rel.GetRelpersistence() == "t" {
			return []Effect{{Kind: CreateTemp, Name: tableName(rel), Stmt: stmt, Verb: "CREATE TEMP TABLE"}}
		}
	case *pg_query.Node_CreateTableAsStmt:
		rel := s.CreateTableAsStmt.GetInto().GetRel()
		if rel.GetRelpersistence() == "t" {
			// The source query runs, and locks, as any SELECT does.
			w.node(nil, s.CreateTableAsStmt.GetQuery())
			return append([]Effect{{Kind: CreateTemp, Name: tableName(rel), Stmt: stmt, Verb: "CREATE TEMP TABLE ... AS"}}, w.effects()...)
		}
	}
	effects := w.effects()
	markPreLocked(effects)
	return effects
}

// ddl records the explicit table lock of a DDL statement.
func (w *walker) ddl(table string, mode Mode, verb string) {
	w.addTable(table, mode, Block, false, verb)
}

// lockStmt handles LOCK [TABLE] [ONLY] t1, t2 [IN mode MODE] [NOWAIT].
func (w *walker) lockStmt(s *pg_query.LockStmt) {
	// The parser stores PostgreSQL's lock number, 1 (ACCESS SHARE) to 8
	// (ACCESS EXCLUSIVE); LOCK without a mode is ACCESS EXCLUSIVE.
	mode := AccessExclusive
	if n := s.GetMode(); n >= 1 && n <= 8 {
		mode = AccessShare + Mode(n-1)
	}
	wait, verb := Block, "LOCK TABLE ... IN "+mode.String()+" MODE"
	if s.GetNowait() {
		wait, verb = NoWait, verb+" NOWAIT"
	}
	for _, rel := range s.GetRelations() {
		w.addTable(tableName(rel.GetRangeVar()), mode, wait, false, verb)
	}
}

// qualifiedName turns a dotted name list ([schema, table] or [table], as in
// DROP TABLE) into a Lock.Table name.
func qualifiedName(items []*pg_query.Node) string {
	switch n := len(items); {
	case n == 1:
		return qualify("", items[0].GetString_().GetSval())
	case n >= 2:
		return qualify(items[n-2].GetString_().GetSval(), items[n-1].GetString_().GetSval())
	}
	return ""
}

// transactionEffects maps BEGIN, COMMIT, SAVEPOINT and friends.
func transactionEffects(stmt int, t *pg_query.TransactionStmt) []Effect {
	e := func(kind EffectKind, verb string) Effect {
		return Effect{Kind: kind, Stmt: stmt, Verb: verb}
	}
	// AND CHAIN starts a new transaction block at once.
	chain := func(end Effect) []Effect {
		if !t.GetChain() {
			return []Effect{end}
		}
		end.Verb += " AND CHAIN"
		return []Effect{end, e(Begin, end.Verb)}
	}
	switch t.GetKind() {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN:
		return []Effect{e(Begin, "BEGIN")}
	case pg_query.TransactionStmtKind_TRANS_STMT_START:
		return []Effect{e(Begin, "START TRANSACTION")}
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		return chain(e(Commit, "COMMIT"))
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return chain(e(Rollback, "ROLLBACK"))
	case pg_query.TransactionStmtKind_TRANS_STMT_PREPARE:
		// The prepared transaction keeps its locks, but this session
		// no longer holds them or controls when they go.
		return []Effect{e(Commit, "PREPARE TRANSACTION")}
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		sp := e(Savepoint, "SAVEPOINT")
		sp.Name = t.GetSavepointName()
		return []Effect{sp}
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		sp := e(RollbackTo, "ROLLBACK TO SAVEPOINT")
		sp.Name = t.GetSavepointName()
		return []Effect{sp}
	case pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:
		sp := e(ReleaseSavepoint, "RELEASE SAVEPOINT")
		sp.Name = t.GetSavepointName()
		return []Effect{sp}
	}
	// COMMIT PREPARED and ROLLBACK PREPARED end another, already
	// detached transaction: nothing changes for this session.
	return nil
}
