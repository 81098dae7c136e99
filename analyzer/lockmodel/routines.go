package lockmodel

import pg_query "github.com/pganalyze/pg_query_go/v5"

// Routine is a function or procedure of the schema.
type Routine struct {
	Name string
}

// Trigger is a trigger of the schema.
type Trigger struct {
	Name, Table string
}

func (s *Schema) routineCount() int { return len(s.routines) }

func (s *Schema) triggerCount() int {
	n := 0
	for _, ts := range s.triggers {
		n += len(ts)
	}
	return n
}

// createFunction records CREATE [OR REPLACE] FUNCTION/PROCEDURE.
func (s *Schema) createFunction(f *pg_query.CreateFunctionStmt) {
	name := funcName(f.GetFuncname())
	s.routines[name] = &Routine{Name: name}
}

// createTrigger records CREATE TRIGGER.
func (s *Schema) createTrigger(t *pg_query.CreateTrigStmt) {
	table := tableName(t.GetRelation())
	s.triggers[table] = append(s.triggers[table], &Trigger{Name: t.GetTrigname(), Table: table})
}

// drop handles DROP FUNCTION/PROCEDURE/TRIGGER.
func (s *Schema) drop(d *pg_query.DropStmt) {}
