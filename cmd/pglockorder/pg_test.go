package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/pgtest"
	"github.com/pglockorder/pglockorder/internal/repro"
	"github.com/pglockorder/pglockorder/internal/testenv"
)

// findCycles runs the whole-program analysis of s, as run does with
// -schema, and returns the cycles it reports.
func findCycles(t *testing.T, s scenario) []*lockgraph.Cycle {
	t.Helper()
	edges := findEdges(t, s)
	// The reproducers built from the cycles create the schema's functions
	// and triggers they rely on (lockmodel.Definitions): keep the schema
	// loaded while the test builds them, also when the edges were cached.
	if err := analyzer.Analyzer.Flags.Set("schema", s.schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = analyzer.Analyzer.Flags.Set("schema", "") })
	return lockgraph.New(edges).Cycles(4)
}

// scenarioEdges caches findEdges by scenario: both server tests analyse
// every scenario.
var scenarioEdges = map[string][]*lockgraph.Edge{}

// findEdges returns the lock-order edges of the whole-program analysis of
// s, without those on temporary tables.
func findEdges(t *testing.T, s scenario) []*lockgraph.Edge {
	t.Helper()
	if edges, ok := scenarioEdges[s.name]; ok {
		return slices.Clone(edges)
	}
	for name, val := range map[string]string{"maxcycle": "4", "debug": "false", "schema": s.schema} {
		if err := analyzer.Analyzer.Flags.Set(name, val); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = analyzer.Analyzer.Flags.Set("schema", "") })
	pkgs, err := load(&packages.Config{Mode: loadMode, Dir: s.dir}, []string{s.pattern})
	if err != nil {
		t.Fatalf("loading %s: %v", s.dir, err)
	}
	if _, left := partition(pkgs); len(left) > 0 {
		t.Fatalf("packages of %s left out: %v", s.dir, left)
	}
	var edges []*lockgraph.Edge
	temps := map[string]bool{}
	for _, u := range analyze(analyzer.Facts, pkgs) {
		if u.err != nil {
			t.Fatalf("%s: %v", u.pkg.PkgPath, u.err)
		}
		// The unit's part holds what its pass made; the pass's result
		// itself is slimmed once the part is made (keepPart).
		part := u.part()
		pe, err := part.Edges.edges()
		if err != nil {
			t.Fatalf("%s: %v", u.pkg.PkgPath, err)
		}
		edges = append(edges, pe...)
		for _, tt := range part.Temps {
			temps[tt] = true
		}
	}
	edges = lockgraph.WithoutTables(edges, temps)
	scenarioEdges[s.name] = edges
	return slices.Clone(edges)
}

// scenario is a directory of testdata with a schema.sql: its reported
// cycles are replayed on a database set up with its SQL files.
type scenario struct {
	name, dir, pattern string
	// schema is the analyzer's -schema: the migrations, or schema.sql.
	schema string
	// setup are the SQL files that create and fill the database, in
	// order; the last is schema.sql.
	setup []string
}

func scenarios(t *testing.T) []scenario {
	t.Helper()
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	example := abs("../../testdata/example/schema.sql")
	migrations, err := filepath.Glob("../../testdata/fkschema/migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	out := []scenario{
		{name: "example", dir: "../../testdata/example", pattern: "./...", schema: example, setup: []string{example}},
		{name: "fkschema", dir: "../../testdata/fkschema", pattern: "./...", schema: abs("../../testdata/fkschema/migrations"),
			setup: append(migrations, "../../testdata/fkschema/schema.sql")},
	}
	// The database's own code: a PL/pgSQL function and a trigger, found
	// without -schema in goose and golang-migrate migrations; the
	// database is set up without them, which each reproducer creates.
	out = append(out, scenario{name: "dbcode", dir: "../../testdata/dbcode", pattern: "./...",
		schema: "auto=" + abs("../../testdata/dbcode"), setup: []string{"../../testdata/dbcode/testdata/setup.sql"}})
	dirs, err := filepath.Glob("../../testdata/corpus/*/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range dirs {
		name := filepath.Base(filepath.Dir(f))
		out = append(out, scenario{name: name, dir: "../../testdata/corpus", pattern: "./" + name + "/...", schema: abs(f), setup: []string{f}})
	}
	return out
}

// setupDB empties the scratch database and runs the scenario's SQL files.
func setupDB(t *testing.T, db string, s scenario) {
	t.Helper()
	c := pgtest.Connect(t, db)
	pgtest.Exec(t, c, "DROP SCHEMA public CASCADE; CREATE SCHEMA public")
	for _, f := range s.setup {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, c, string(text))
	}
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
	defer func() { _ = f.Close() }()
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
	byExpect := map[repro.Expect]int{}
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			cycles := findCycles(t, s)
			if len(cycles) == 0 {
				t.Fatalf("no cycle reported: a scenario with a schema.sql is a positive one")
			}
			db := pgtest.ScratchDB(t)
			given := values(t, s.setup[len(s.setup)-1])
			for i, c := range cycles {
				total++
				sc := repro.Build(c, analyzer.FlagSchema(), nil)
				// Each cycle starts from the schema's rows.
				setupDB(t, db, s)
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
				byExpect[sc.Expect]++
				t.Logf("cycle %d (%s): %v", i+1, sc.Title, out)
			}
		})
	}
	t.Logf("%d of %d reported cycles ended on the server as their reproducer says: %d deadlocks, %d deadlocks keeping a session lock, %d hangs",
		proved, total, byExpect[repro.Deadlock], byExpect[repro.DeadlockSessionLock], byExpect[repro.Hang])
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

// TestNegativesOnServer replays what the analyzer does not report: every
// pair of paths that takes two locks in opposite orders without closing a
// reported cycle (FOR SHARE against FOR SHARE, SKIP LOCKED, NOWAIT, ...) is
// run in the interleaving that would deadlock, and must not: no 40P01 and
// no wait that only lock_timeout ends.
func TestNegativesOnServer(t *testing.T) {
	pgtest.DSN(t) // skips without a server
	if testing.Short() {
		t.Skip("loads and analyses every scenario; skipped with -short")
	}
	// The corpus's negative cases that must be found and replayed: FOR
	// KEY SHARE against NO KEY UPDATE and FOR SHARE against FOR SHARE;
	// NOWAIT and SKIP LOCKED; LOCK TABLE in ACCESS SHARE mode.
	// And the foreign-key check against a non-key update of the parent.
	minPairs := map[string]int{"forshare": 2, "skiplocked": 2, "locktable": 1, "fkschema": 1}
	total := 0
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			replayed := 0
			defer func() {
				if replayed < minPairs[s.name] {
					t.Errorf("%d unreported pairs replayed, want at least %d", replayed, minPairs[s.name])
				}
			}()
			edges := lockgraph.Dedupe(findEdges(t, s))
			// The class cycles the analyzer reports, with those it folds
			// into a reported one.
			reported := map[string]bool{}
			for _, c := range lockgraph.New(edges).Cycles(4) {
				for _, cl := range append([][]lockgraph.Class{c.Classes()}, c.Also...) {
					if len(cl) == 2 {
						reported[objectPair(cl[0], cl[1])] = true
					}
				}
			}
			byFunc := map[string]bool{}
			for _, e := range edges {
				byFunc[e.Func+"|"+e.Held.Class.String()+"|"+e.Wanted.Class.String()] = true
			}
			var pairs [][2]*lockgraph.Edge
			for i, a := range edges {
				for _, b := range edges[i+1:] {
					if unreportedPair(a, b, reported, byFunc) {
						pairs = append(pairs, [2]*lockgraph.Edge{a, b})
					}
				}
			}
			if len(pairs) == 0 {
				return
			}
			db := pgtest.ScratchDB(t)
			given := values(t, s.setup[len(s.setup)-1])
			for _, p := range pairs {
				total++
				replayed++
				sc := repro.Build(&lockgraph.Cycle{Steps: p[:], Severity: lockgraph.Detected, Breaker: -1}, analyzer.FlagSchema(), nil)
				setupDB(t, db, s)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				out, err := pgtest.Replay(ctx, db, sc, bindAll(sc, given))
				cancel()
				what := fmt.Sprintf("%s: %s then %s / %s: %s then %s", p[0].Func, p[0].Held, p[0].Wanted, p[1].Func, p[1].Held, p[1].Wanted)
				if err != nil {
					t.Errorf("%s: %v", what, err)
					continue
				}
				if out.Deadlocks() > 0 || out.LockTimeouts() > 0 {
					t.Errorf("%s: not reported, but on the server: %v", what, out)
					continue
				}
				for name, e := range out.Errors {
					// NOWAIT fails at once by design; any other error means
					// the replay did not run the path's statements.
					if e.Code != "55P03" {
						t.Errorf("%s: %s failed: %v", what, name, out)
					}
				}
				t.Logf("%s: %v", what, out)
			}
		})
	}
	t.Logf("%d unreported opposite-order pairs replayed", total)
}

// unreportedPair reports whether two paths take locks on two objects in
// opposite orders, the analyzer reports no cycle of those objects, and
// replaying the pair alone is faithful: one connection each, no gate that
// serialises them, and no implicit table lock of a statement whose row lock
// has its own edge (that pair is the one to judge). A NOWAIT or SKIP LOCKED
// request has no row edge: its pair is replayed through its table lock.
func unreportedPair(a, b *lockgraph.Edge, reported, edges map[string]bool) bool {
	if a.Func == b.Func || a.CrossConn || b.CrossConn || lockgraph.Gated([]*lockgraph.Edge{a, b}) ||
		object(a.Held.Class) != object(b.Wanted.Class) || object(a.Wanted.Class) != object(b.Held.Class) ||
		object(a.Held.Class) == object(a.Wanted.Class) {
		return false
	}
	for _, e := range []*lockgraph.Edge{a, b} {
		held, wanted := e.Held.Class, e.Wanted.Class
		if implicitTable(held, e.HeldPath) {
			held = lockgraph.RowsOf(object(held))
		}
		if implicitTable(wanted, e.WantedPath) {
			wanted = lockgraph.RowsOf(object(wanted))
		}
		for _, h := range []lockgraph.Class{e.Held.Class, held} {
			for _, w := range []lockgraph.Class{e.Wanted.Class, wanted} {
				if (h != e.Held.Class || w != e.Wanted.Class) && edges[e.Func+"|"+h.String()+"|"+w.String()] {
					return false
				}
			}
		}
	}
	return !reported[objectPair(a.Held.Class, a.Wanted.Class)]
}

// implicitTable reports whether a lock end is the table lock an ordinary
// statement takes (not LOCK TABLE).
func implicitTable(class lockgraph.Class, path []lockgraph.Frame) bool {
	return class.IsTable() && (len(path) == 0 || !strings.HasPrefix(path[len(path)-1].What, "LOCK TABLE"))
}

// object is the table a row or table class locks, or the class's text.
func object(class lockgraph.Class) string {
	if t := class.Table(); t != "" {
		return t
	}
	return class.String()
}

// objectPair names an unordered pair of objects.
func objectPair(a, b lockgraph.Class) string {
	x, y := object(a), object(b)
	if y < x {
		x, y = y, x
	}
	return x + " | " + y
}

// TestReproScriptsWithPsql runs the shell scripts -repro prints, as a user
// would, with psql on a database set up like the scenario: each must show
// the deadlock its header announces. (The other server tests replay the
// same reproducers through pgx, turn by turn; this one proves the rendered
// text.)
func TestReproScriptsWithPsql(t *testing.T) {
	dsn := pgtest.DSN(t)
	if testing.Short() {
		t.Skip("runs psql for seconds; skipped with -short")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		testenv.Skip(t, "psql", ".ci/run installs it with PostgreSQL")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios(t) {
		if s.name != "example" && s.name != "fkschema" && s.name != "dbcode" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			db := pgtest.ScratchDB(t)
			dbCfg, err := pgx.ParseConfig(db)
			if err != nil {
				t.Fatal(err)
			}
			given := values(t, s.setup[len(s.setup)-1])
			for i, c := range findCycles(t, s) {
				setupDB(t, db, s)
				sc := repro.Build(c, analyzer.FlagSchema(), nil)
				var script bytes.Buffer
				if err := repro.Render(&script, i+1, sc); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("sh", "-s")
				cmd.Stdin = &script
				cmd.Env = append(os.Environ(),
					"PGHOST="+cfg.Host, "PGPORT="+strconv.Itoa(int(cfg.Port)), "PGUSER="+cfg.User,
					"PGPASSWORD="+cfg.Password, "PGDATABASE="+dbCfg.Database, "PGLOCKORDER_TIMEOUT=5")
				for name, v := range bindAll(sc, given) {
					cmd.Env = append(cmd.Env, name+"="+v)
				}
				// Exit status 3 and a last line say the deadlock happened.
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.HasSuffix(string(out), "reproduced: yes (deadlock detected (40P01))\n") {
					t.Fatalf("cycle %d: sh: %v, want exit status 3 and reproduced: yes\n%s", i+1, err, out)
				}
				if n := strings.Count(string(out), "ERROR:  deadlock detected"); n != 1 || sc.Expect != repro.Deadlock {
					t.Errorf("cycle %d (%s): %d deadlock errors, want 1 (%v)\n%s", i+1, sc.Title, n, sc.Expect, out)
				}
			}
		})
	}
}
