package lockmodel

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Fingerprint returns pg_query's fingerprint of sql: two statements that
// differ only in their constants, $n parameters, case and white space get
// the same one. It compares a statement as a server log shows it (with the
// values the application bound, or with its $n) with the text the Go code
// sends. Bind markers other than $n (?, :name) are read as $n first.
func Fingerprint(sql string) (string, error) {
	if strings.IndexByte(sql, 0) >= 0 {
		return "", fmt.Errorf("fingerprint SQL: %w", errNUL)
	}
	fp, err := pg_query.Fingerprint(sql)
	if alt, ok := rewritePlaceholders(sql); err != nil && ok {
		if fp2, err2 := pg_query.Fingerprint(alt); err2 == nil {
			fp, err = fp2, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("fingerprint SQL: %w", err)
	}
	return fp, nil
}

// Shape is what a weaker match of two statements compares when their
// fingerprints differ (an ORM's rendering against the text the server
// logged, a schema-qualified name, an extra condition): the kinds of the
// statements and the tables they lock.
type Shape struct {
	// Kinds are the statements' kinds in order ("SELECT", "UPDATE",
	// "DELETE", "INSERT", "MERGE", "LOCK", ...).
	Kinds []string
	// Tables are the distinct tables the statements lock (row or table
	// locks), sorted.
	Tables []string
	// Locks are the lock requests of the statements, in execution order,
	// as Analyze reports them.
	Locks []Lock
}

// Key is the shape as one comparable string.
func (s Shape) Key() string {
	return strings.Join(s.Kinds, ";") + " " + strings.Join(s.Tables, ",")
}

// ShapeOf parses sql and returns its shape, with no schema. Unlike Analyze
// it does not cache: a server log holds any number of distinct statements.
func ShapeOf(sql string) (Shape, error) {
	return (*Schema)(nil).ShapeOf(sql)
}

// ShapeOf is the package's ShapeOf with the locks the schema implies (nil:
// none).
func (s *Schema) ShapeOf(sql string) (Shape, error) {
	a := analyze(s, sql)
	if a.Err != nil {
		return Shape{}, a.Err
	}
	tree, err := pg_query.Parse(sql)
	if alt, ok := rewritePlaceholders(sql); err != nil && ok {
		tree, err = parseRewritten(alt, err)
	}
	if err != nil {
		return Shape{}, fmt.Errorf("parse SQL: %w", err)
	}
	var shape Shape
	for _, raw := range tree.GetStmts() {
		shape.Kinds = append(shape.Kinds, stmtKind(raw.GetStmt()))
	}
	for _, e := range a.Effects {
		if e.Kind != Acquire {
			continue
		}
		shape.Locks = append(shape.Locks, e.Lock)
		if e.Lock.Table != "" {
			shape.Tables = append(shape.Tables, e.Lock.Table)
		}
	}
	slices.Sort(shape.Tables)
	shape.Tables = slices.Compact(shape.Tables)
	return shape, nil
}

// stmtKind names the kind of a top-level statement.
func stmtKind(n *pg_query.Node) string {
	switch n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		return "SELECT"
	case *pg_query.Node_UpdateStmt:
		return "UPDATE"
	case *pg_query.Node_DeleteStmt:
		return "DELETE"
	case *pg_query.Node_InsertStmt:
		return "INSERT"
	case *pg_query.Node_MergeStmt:
		return "MERGE"
	case *pg_query.Node_LockStmt:
		return "LOCK"
	case *pg_query.Node_TransactionStmt:
		return "TRANSACTION"
	case nil:
		return "EMPTY"
	}
	// Other statements (DDL, utility) by their node name, which is
	// stable: "TruncateStmt", "AlterTableStmt".
	name := fmt.Sprintf("%T", n.GetNode())
	return strings.TrimPrefix(name, "*pg_query.Node_")
}
