package lockmodel

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Schema is what the lock model knows of the database's tables from its
// migrations: keys and foreign keys. With it, a statement's locks include
// those PostgreSQL takes on other tables for referential integrity
// (pg-lock-facts §4 and §5):
//
//   - inserting a child row, or updating its foreign-key columns, takes FOR
//     KEY SHARE on the referenced parent row (and ROW SHARE on the parent
//     table);
//   - deleting a parent row, or updating its key, locks the child rows that
//     ON DELETE / ON UPDATE CASCADE, SET NULL or SET DEFAULT change;
//   - an UPDATE that changes a column of a primary key or of a unique
//     constraint or index takes FOR UPDATE, not FOR NO KEY UPDATE.
type Schema struct {
	tables map[string]*schemaTable
	// routines are the functions and procedures, by name; triggers the
	// triggers, by table (see routines.go).
	routines map[string]*Routine
	triggers map[string][]*Trigger
	// bodies caches the effects of routine bodies by call shape (see
	// bodyEffects); a schema changed by Parse starts a new cache.
	bodies sync.Map
	// analyses caches Analyze with this schema, by SQL string (see
	// cache); a schema changed by Parse starts a new cache.
	analyses sync.Map
}

// schemaTable is one table of a Schema.
type schemaTable struct {
	// keys are the column sets of the primary key and of the unique
	// constraints and (full, plain-column) unique indexes.
	keys [][]string
	// primary is the primary key's columns.
	primary []string
	// refs are the table's foreign keys (it is the child); referencedBy
	// those that reference it (it is the parent).
	refs, referencedBy []*ForeignKey
}

// FKAction is what a foreign key does to child rows when the parent row is
// deleted or its key changes.
type FKAction byte

// The foreign-key actions, as pg_query spells them.
const (
	NoAction   FKAction = 'a'
	Restrict   FKAction = 'r'
	Cascade    FKAction = 'c'
	SetNull    FKAction = 'n'
	SetDefault FKAction = 'd'
)

// ForeignKey is a foreign-key constraint.
type ForeignKey struct {
	Child, Parent         string
	ChildCols, ParentCols []string
	OnDelete, OnUpdate    FKAction
}

// changesChild reports whether the action writes child rows.
func (a FKAction) changesChild() bool { return a == Cascade || a == SetNull || a == SetDefault }

// LoadSchema reads the schema from a .sql file, or from every .sql file
// under a directory in lexical order of their paths (the order migration
// tools apply them in). Statements other than CREATE TABLE, ALTER TABLE
// ... ADD and CREATE INDEX are ignored.
func LoadSchema(path string) (*Schema, error) {
	s, _, err := loadSchemaFiles(path)
	return s, err
}

// loadSchemaFiles is LoadSchema, also returning the files it read and
// what each added.
func loadSchemaFiles(path string) (*Schema, []SchemaSource, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading schema: %w", err)
	}
	files := []string{path}
	if info.IsDir() {
		files = nil
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".sql") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("reading schema: %w", err)
		}
		sort.Strings(files)
	}
	s := NewSchema()
	var sources []SchemaSource
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("reading schema: %w", err)
		}
		if strings.HasSuffix(f, ".down.sql") {
			continue // golang-migrate's down migrations are never applied
		}
		sql := string(text)
		if layout, up := migrationText(path, f, sql); layout != "" {
			sql = up // goose, dbmate, tern: the up part only
		}
		before := s.counts()
		if err := s.Parse(sql); err != nil {
			return nil, nil, fmt.Errorf("schema %s: %w", f, err)
		}
		sources = append(sources, s.added(SchemaSource{File: f}, before))
	}
	return s, sources, nil
}

// NewSchema returns an empty schema.
func NewSchema() *Schema {
	return &Schema{tables: map[string]*schemaTable{}, routines: map[string]*Routine{}, triggers: map[string][]*Trigger{}}
}

// Parse adds the tables, keys and foreign keys that the SQL text defines.
// A migration often also holds statements pg_query cannot parse as a whole
// (psql meta-commands); such text is an error.
func (s *Schema) Parse(sql string) error {
	s.bodies.Clear()
	s.analyses.Clear()
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	for _, raw := range tree.GetStmts() {
		source := stmtSource(sql, raw)
		switch n := raw.GetStmt().GetNode().(type) {
		case *pg_query.Node_CreateStmt:
			table := tableName(n.CreateStmt.GetRelation())
			for _, elt := range n.CreateStmt.GetTableElts() {
				s.element(table, elt)
			}
		case *pg_query.Node_AlterTableStmt:
			table := tableName(n.AlterTableStmt.GetRelation())
			for _, c := range n.AlterTableStmt.GetCmds() {
				cmd := c.GetAlterTableCmd()
				switch cmd.GetSubtype() {
				case pg_query.AlterTableType_AT_AddConstraint, pg_query.AlterTableType_AT_AddColumn:
					s.element(table, cmd.GetDef())
				}
			}
		case *pg_query.Node_DropStmt:
			// A later migration that drops a table drops what it knew.
			if n.DropStmt.GetRemoveType() == pg_query.ObjectType_OBJECT_TABLE {
				for _, o := range n.DropStmt.GetObjects() {
					var parts []string
					for _, p := range o.GetList().GetItems() {
						parts = append(parts, p.GetString_().GetSval())
					}
					if len(parts) > 0 {
						s.dropTable(qualify(strings.Join(parts[:len(parts)-1], "."), parts[len(parts)-1]))
					}
				}
			}
			s.drop(n.DropStmt)
		case *pg_query.Node_CreateFunctionStmt:
			s.createFunction(n.CreateFunctionStmt, source)
		case *pg_query.Node_CreateTrigStmt:
			s.createTrigger(n.CreateTrigStmt, source)
		case *pg_query.Node_IndexStmt:
			ix := n.IndexStmt
			if !ix.GetUnique() && !ix.GetPrimary() || ix.GetWhereClause() != nil {
				continue // only a full unique index makes a key
			}
			var cols []string
			for _, p := range ix.GetIndexParams() {
				name := p.GetIndexElem().GetName()
				if name == "" {
					cols = nil // an expression: not a key of columns
					break
				}
				cols = append(cols, name)
			}
			if len(cols) > 0 {
				s.addKey(tableName(ix.GetRelation()), cols, ix.GetPrimary())
			}
		}
	}
	return nil
}

// stmtSource returns the text of a raw statement of sql. Locations are byte
// offsets.
func stmtSource(sql string, raw *pg_query.RawStmt) string {
	start := int(raw.GetStmtLocation())
	end := len(sql)
	if l := int(raw.GetStmtLen()); l > 0 && start+l <= len(sql) {
		end = start + l
	}
	if start < 0 || start > end {
		return ""
	}
	return trimLeadingComments(sql[start:end])
}

// trimLeadingComments drops the blanks and comments before a statement's
// first word (the comments above a CREATE FUNCTION in a migration).
func trimLeadingComments(text string) string {
	for {
		text = strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(text, "--"):
			i := strings.IndexByte(text, '\n')
			if i < 0 {
				return ""
			}
			text = text[i+1:]
		case strings.HasPrefix(text, "/*"):
			i := strings.Index(text, "*/")
			if i < 0 {
				return ""
			}
			text = text[i+2:]
		default:
			return text
		}
	}
}

// dropTable forgets a table and the foreign keys from and to it.
func (s *Schema) dropTable(name string) {
	t := s.tables[name]
	if t == nil {
		return
	}
	delete(s.tables, name)
	for _, other := range s.tables {
		other.refs = slices.DeleteFunc(other.refs, func(fk *ForeignKey) bool { return fk.Parent == name })
		other.referencedBy = slices.DeleteFunc(other.referencedBy, func(fk *ForeignKey) bool { return fk.Child == name })
	}
	delete(s.triggers, name)
}

// table returns the table's entry, creating it.
func (s *Schema) table(name string) *schemaTable {
	t := s.tables[name]
	if t == nil {
		t = &schemaTable{}
		s.tables[name] = t
	}
	return t
}

// element handles a column definition or a table constraint of table.
func (s *Schema) element(table string, n *pg_query.Node) {
	s.table(table)
	if col := n.GetColumnDef(); col != nil {
		for _, c := range col.GetConstraints() {
			s.constraint(table, []string{col.GetColname()}, c.GetConstraint())
		}
		return
	}
	if c := n.GetConstraint(); c != nil {
		s.constraint(table, nil, c)
	}
}

// constraint handles a PRIMARY KEY, UNIQUE or FOREIGN KEY constraint; cols
// are the column of a column constraint, nil for a table constraint.
func (s *Schema) constraint(table string, cols []string, c *pg_query.Constraint) {
	switch c.GetContype() {
	case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE:
		keys := names(c.GetKeys())
		if len(keys) == 0 {
			keys = cols
		}
		s.addKey(table, keys, c.GetContype() == pg_query.ConstrType_CONSTR_PRIMARY)
	case pg_query.ConstrType_CONSTR_FOREIGN:
		child := names(c.GetFkAttrs())
		if len(child) == 0 {
			child = cols
		}
		fk := &ForeignKey{
			Child: table, Parent: tableName(c.GetPktable()),
			ChildCols: child, ParentCols: names(c.GetPkAttrs()),
			OnDelete: action(c.GetFkDelAction()), OnUpdate: action(c.GetFkUpdAction()),
		}
		if fk.Parent == "" || len(child) == 0 {
			return
		}
		s.table(table).refs = append(s.table(table).refs, fk)
		s.table(fk.Parent).referencedBy = append(s.table(fk.Parent).referencedBy, fk)
	}
}

func (s *Schema) addKey(table string, cols []string, primary bool) {
	if len(cols) == 0 {
		return
	}
	t := s.table(table)
	if primary {
		t.primary = cols
	}
	for _, k := range t.keys {
		if slices.Equal(k, cols) {
			return
		}
	}
	t.keys = append(t.keys, cols)
}

func action(a string) FKAction {
	if a == "" {
		return NoAction
	}
	return FKAction(a[0])
}

// names returns the strings of a list of String nodes (column names).
func names(ns []*pg_query.Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		if s := n.GetString_().GetSval(); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// IsSingleRow reports whether equality on the given columns of table
// selects at most one row: the columns include every column of the primary
// key or of a unique constraint or index.
func (s *Schema) IsSingleRow(table string, cols []string) bool {
	t := s.lookup(table)
	if t == nil {
		return false
	}
	for _, k := range t.keys {
		if subset(k, cols) {
			return true
		}
	}
	return false
}

// IsKeyColumn reports whether col belongs to the primary key or to a unique
// constraint or index of table: an UPDATE that changes it takes FOR UPDATE.
func (s *Schema) IsKeyColumn(table, col string) bool {
	t := s.lookup(table)
	if t == nil {
		return false
	}
	for _, k := range t.keys {
		if slices.Contains(k, col) {
			return true
		}
	}
	return false
}

// ForeignKeys returns the foreign keys of table (as the child) and those
// that reference it (as the parent).
func (s *Schema) ForeignKeys(table string) (refs, referencedBy []*ForeignKey) {
	t := s.lookup(table)
	if t == nil {
		return nil, nil
	}
	return t.refs, t.referencedBy
}

func (s *Schema) lookup(table string) *schemaTable {
	if s == nil {
		return nil
	}
	return s.tables[table]
}

func subset(small, big []string) bool {
	for _, c := range small {
		if !slices.Contains(big, c) {
			return false
		}
	}
	return true
}

// SchemaFlag is a flag.Value that loads the schema the flag names, for its
// holder to pass to Schema.Analyze: a .sql file or directory of migrations;
// "none" for no schema; or "auto=DIR" (several directories joined by the
// OS's path-list separator) to discover the migrations of the modules
// rooted there (DiscoverSchema).
//
// Discovered migrations are read when the flag is set, so that their files
// are known (a cache key hashes them), and parsed when the schema or its
// sources are first asked for: a run whose results come from a cache, or
// whose analysed packages send no SQL, does not parse them (on hatchet,
// 150 migrations, a tenth of the CPU of a run on an unchanged tree).
type SchemaFlag struct {
	path  string
	files []string
	load  *schemaLoad
}

// schemaLoad is a schema parsed on first use.
type schemaLoad struct {
	once    sync.Once
	migs    []migration
	schema  *Schema
	sources []SchemaSource
}

// get parses the migrations, the first time.
func (l *schemaLoad) get() *schemaLoad {
	l.once.Do(func() {
		if l.migs != nil {
			l.schema, l.sources = applyMigrations(l.migs)
			l.migs = nil
		}
	})
	return l
}

// Schema returns the schema the flag loaded, or nil for none.
func (f *SchemaFlag) Schema() *Schema {
	if f == nil || f.load == nil {
		return nil
	}
	return f.load.get().schema
}

// String returns the flag's value.
func (f *SchemaFlag) String() string {
	if f == nil {
		return ""
	}
	return f.path
}

// Set loads the schema the value names; an empty value unsets it.
func (f *SchemaFlag) Set(value string) error {
	f.path, f.files, f.load = value, nil, nil
	switch {
	case value == "" || value == "none":
		return nil
	case strings.HasPrefix(value, "auto="):
		roots := filepath.SplitList(strings.TrimPrefix(value, "auto="))
		migs, err := discoverMigrations(roots)
		if err != nil {
			return err
		}
		for _, m := range migs {
			for _, r := range roots {
				if p := filepath.Join(r, m.file); exists(p) {
					f.files = append(f.files, p)
					break
				}
			}
		}
		f.load = &schemaLoad{migs: migs}
		return nil
	}
	// A named schema is parsed now: a statement of it that does not
	// parse is the flag's error.
	s, sources, err := loadSchemaFiles(value)
	if err != nil {
		return err
	}
	for _, src := range sources {
		f.files = append(f.files, src.File)
	}
	f.load = &schemaLoad{schema: s, sources: sources}
	return nil
}

// Sources lists the files the schema was read from, with what each added
// when it was discovered.
func (f *SchemaFlag) Sources() []SchemaSource {
	if f.load == nil {
		return nil
	}
	return f.load.get().sources
}

// Files lists the paths of the files the schema was read from.
func (f *SchemaFlag) Files() []string { return f.files }
