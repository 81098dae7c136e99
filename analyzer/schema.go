package analyzer

import "github.com/pglockorder/pglockorder/internal/lockmodel"

// schemaFlag holds the -schema flag: setting it loads the migrations and
// makes the lock model add the locks of foreign keys and key updates.
var schemaFlag lockmodel.SchemaFlag

func init() {
	Analyzer.Flags.Var(&schemaFlag, "schema",
		"`path` of a .sql file, or of a directory of .sql migrations, with the CREATE TABLE, ALTER TABLE ... ADD CONSTRAINT "+
			"and CREATE INDEX statements of the database: adds the row locks of foreign-key checks and cascades, and "+
			"FOR UPDATE for updates of key columns")
}

// FlagSchema returns the schema the -schema flag loaded (nil: none), for a
// driver that reports with the schema it analysed with (reproducers,
// -explain). Packages whose flag is unset use their module's configuration
// instead (see settings).
func FlagSchema() *lockmodel.Schema { return schemaFlag.Schema() }
