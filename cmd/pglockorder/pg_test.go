package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/analyzer/lockgraph"
	"github.com/pglockorder/pglockorder/analyzer/repro"
	"github.com/pglockorder/pglockorder/internal/pgtest"
)

// findCycles runs the whole-program analysis on patterns in dir, as run
// does, and returns the cycles it reports.
func findCycles(t *testing.T, dir string, patterns ...string) []*lockgraph.Cycle {
	t.Helper()
	for name, val := range map[string]string{"wholeprogram": "true", "maxcycle": "4", "debug": "false"} {
		if err := analyzer.Analyzer.Flags.Set(name, val); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := load(&packages.Config{Mode: loadMode, Dir: dir}, patterns)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	if n := printErrors(os.Stderr, pkgs); n > 0 {
		t.Fatalf("%d errors loading %s", n, dir)
	}
	var edges []*lockgraph.Edge
	temps := map[string]bool{}
	for _, u := range analyze(analyzer.Analyzer, pkgs) {
		if u.err != nil {
			t.Fatalf("%s: %v", u.pkg.PkgPath, u.err)
		}
		if res, ok := u.result.(*analyzer.Result); ok {
			edges = append(edges, res.Edges...)
			for _, tt := range res.TempTables {
				temps[tt] = true
			}
		}
	}
	return lockgraph.New(lockgraph.WithoutTables(edges, temps)).Cycles(4)
}

// scenario is a directory of testdata with a schema.sql: its reported
// cycles are replayed on a database with that schema.
type scenario struct {
	name, dir, pattern, schema string
}

func scenarios(t *testing.T) []scenario {
	t.Helper()
	out := []scenario{{name: "example", dir: "../../testdata/example", pattern: "./...", schema: "../../testdata/example/schema.sql"}}
	dirs, err := filepath.Glob("../../testdata/corpus/*/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range dirs {
		name := filepath.Base(filepath.Dir(s))
		out = append(out, scenario{name: name, dir: "../../testdata/corpus", pattern: "./" + name + "/...", schema: s})
	}
	return out
}

// values reads the placeholder values of a schema.sql: lines
// "-- repro: name=value"; every other placeholder is 1, the row each
// schema.sql seeds.
func values(t *testing.T, schema string) map[string]string {
	t.Helper()
	f, err := os.Open(schema)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "-- repro: "); ok {
			if k, v, ok := strings.Cut(rest, "="); ok {
				vals[k] = v
			}
		}
	}
	return vals
}

// bindAll gives every variable of the script a value: the schema's, or 1.
func bindAll(sc *repro.Script, given map[string]string) map[string]string {
	vals := map[string]string{}
	for _, v := range sc.Vars {
		vals[v.Name] = "1"
		if g, ok := given[v.Name]; ok {
			vals[v.Name] = g
		}
	}
	return vals
}

// TestReproducersOnServer is the ground truth of the findings: every cycle
// the analyzer reports in a scenario with a schema.sql is replayed on a
// fresh database with that schema, and must end as its reproducer says.
func TestReproducersOnServer(t *testing.T) {
	pgtest.DSN(t) // skips without a server
	if testing.Short() {
		t.Skip("loads and analyses every scenario; skipped with -short")
	}
	total, proved := 0, 0
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			schema, err := os.ReadFile(s.schema)
			if err != nil {
				t.Fatal(err)
			}
			cycles := findCycles(t, s.dir, s.pattern)
			if len(cycles) == 0 {
				t.Fatalf("no cycle reported: a scenario with a schema.sql is a positive one")
			}
			db := pgtest.ScratchDB(t)
			given := values(t, s.schema)
			for i, c := range cycles {
				total++
				sc := repro.Build(c, nil)
				// Each cycle starts from the schema's rows.
				setup := pgtest.Connect(t, db)
				pgtest.Exec(t, setup, "DROP SCHEMA public CASCADE; CREATE SCHEMA public")
				pgtest.Exec(t, setup, string(schema))
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				out, err := pgtest.Replay(ctx, db, sc, bindAll(sc, given))
				cancel()
				if err != nil {
					t.Errorf("cycle %d (%s): %v", i+1, sc.Title, err)
					continue
				}
				if ok := check(sc.Expect, out); !ok {
					t.Errorf("cycle %d (%s): expected %v\ngot: %v", i+1, sc.Title, sc.Expect, out)
					continue
				}
				proved++
				t.Logf("cycle %d (%s): %v", i+1, sc.Title, out)
			}
		})
	}
	t.Logf("%d of %d reported cycles ended on the server as their reproducer says", proved, total)
}

// check reports whether an outcome is the one a reproducer expects.
func check(want repro.Expect, out *pgtest.Outcome) bool {
	switch want {
	case repro.Deadlock:
		return out.Deadlocks() == 1 && out.LockTimeouts() == 0 && len(out.Errors) == 1
	case repro.DeadlockSessionLock:
		return out.Deadlocks() == 1 && out.SessionLocks > 0
	case repro.Hang:
		return out.Deadlocks() == 0 && out.LockTimeouts() > 0
	}
	return false
}
