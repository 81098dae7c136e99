package analyzer_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// libs is the analysistest module of code written with ORMs and query
// builders, compiled against the real libraries at released versions (see
// its go.mod): sqlx, GORM, bun, squirrel, goqu, scany, xorm and ent (whose code entc
// generated into entjobs/ent); and beego's ORM, v2 and v1, against
// stand-ins of its API (stubs/), since the module proxy does not serve it.
var libs = filepath.Join("..", "testdata", "libs")

// libScenarios are the packages checked: each library's inversion and its
// fixed form. ent's generated packages are analysed as their dependencies,
// but not checked: nobody writes expectations into generated code.
var libScenarios = []string{
	"./sqlxjobs/...", "./gormjobs/...", "./gormrows", "./bunjobs/...", "./sqjobs/...", "./goqujobs/...", "./scanyjobs/...", "./xormjobs/...",
	"./entjobs", "./entjobs/fixed", "./entjobs/rows", "./beegojobs/...", "./beegov1", "./jetjobs", "./jetjobs/fixed",
}

// TestLibraries checks, for each library, a lock-order inversion written
// with it and the fixed form, which must be silent.
func TestLibraries(t *testing.T) {
	downloadModules(t, libs)
	analysistest.Run(t, libs, analyzer.CorpusAnalyzer, libScenarios...)
}

// TestUserRules checks the -sinks and -txrunners flags on a wrapper the
// analysis cannot see into: declared, its inversion is found.
func TestUserRules(t *testing.T) {
	downloadModules(t, libs)
	set := func(name, val string) {
		if err := analyzer.Analyzer.Flags.Set(name, val); err != nil {
			t.Fatal(err)
		}
	}
	set("sinks", "libs/userrules/dbwrap.Conn.Run:1,libs/userrules/dbwrap.Exec:2")
	set("txrunners", "libs/userrules/dbwrap.Conn.Atomically:1")
	t.Cleanup(func() {
		set("sinks", "")
		set("txrunners", "")
	})
	analysistest.Run(t, libs, analyzer.CorpusAnalyzer, "./userrules/app")
}

// TestUserInterfaceRules checks -sinks and -txrunners that name methods of
// interfaces: they apply to every call through the interface and to every
// implementation's method, called on the concrete type, whose package
// need not import the interface's. A store behind the interface joins the
// transaction that the runner's context carries.
func TestUserInterfaceRules(t *testing.T) {
	downloadModules(t, libs)
	set := func(name, val string) {
		if err := analyzer.Analyzer.Flags.Set(name, val); err != nil {
			t.Fatal(err)
		}
	}
	set("sinks", "libs/userrules/port.Store.Exec:1")
	set("txrunners", "libs/userrules/port.TxRunner.InTx:1")
	t.Cleanup(func() {
		set("sinks", "")
		set("txrunners", "")
	})
	analysistest.Run(t, libs, analyzer.CorpusAnalyzer, "./userrules/svc/...")
}
