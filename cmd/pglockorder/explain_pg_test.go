package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/explain"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/pgtest"
	"github.com/pglockorder/pglockorder/internal/report"
	"github.com/pglockorder/pglockorder/internal/repro"
)

// explainProgramOf analyses a scenario as run does and returns what
// -explain needs, with the cycles.
func explainProgramOf(t *testing.T, s scenario) (explain.Program, []*lockgraph.Cycle) {
	t.Helper()
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
	var (
		edges []*lockgraph.Edge
		sites []lockseq.Site
	)
	for _, u := range analyze(analyzer.Facts, pkgs) {
		if u.err != nil {
			t.Fatalf("%s: %v", u.pkg.PkgPath, u.err)
		}
		part := u.part()
		pe, err := part.Edges.edges()
		if err != nil {
			t.Fatalf("%s: %v", u.pkg.PkgPath, err)
		}
		edges = append(edges, pe...)
		sites = append(sites, part.Sites...)
	}
	cycles := lockgraph.New(edges).Cycles(4)
	var fs []finding
	for _, c := range cycles {
		fs = append(fs, finding{Posn: c.Anchor().Anchor().String(), Category: report.Category(c), Message: report.Message(c, report.Options{}), cycle: c})
	}
	return explainProgram(sites, edges, fs, nil), cycles
}

// serverLog returns a function that reads what the server logged since
// the call: the file PGLOCKORDER_TEST_SERVERLOG names (.ci/run sets it to
// its server's log), else the server's current stderr log when it runs a
// logging collector; nil when neither can be read.
func serverLog(t *testing.T, dsn string) func() string {
	t.Helper()
	path := os.Getenv("PGLOCKORDER_TEST_SERVERLOG")
	if path == "" {
		c := pgtest.Connect(t, dsn)
		var p *string
		if err := c.QueryRow(context.Background(), "SELECT pg_current_logfile('stderr')").Scan(&p); err != nil || p == nil {
			return nil
		}
		path = *p
		if !strings.HasPrefix(path, "/") {
			var data string
			if err := c.QueryRow(context.Background(), "SHOW data_directory").Scan(&data); err != nil {
				return nil
			}
			path = data + "/" + path
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	start, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		_ = f.Close()
		return nil
	}
	t.Cleanup(func() { _ = f.Close() })
	return func() string {
		// The server writes the log asynchronously: give it a moment.
		time.Sleep(200 * time.Millisecond)
		data := make([]byte, 0, 1<<16)
		buf := make([]byte, 1<<16)
		off := start
		for {
			n, err := f.ReadAt(buf, off)
			data = append(data, buf[:n]...)
			off += int64(n)
			if err != nil {
				break
			}
		}
		start = off
		return string(data)
	}
}

// TestExplainOnServer replays every reported cycle of the example and the
// corpus scenarios on a real server and explains what the server said:
// its log when the test can read it (the statements of every process),
// else the error the driver returned (only the waits). The explanation
// must name the cycle's functions, and with the log, explain the deadlock
// by the cycle's finding. The same statements run one transaction after
// the other deadlock nowhere: nothing to explain.
func TestExplainOnServer(t *testing.T) {
	dsn := pgtest.DSN(t) // skips without a server
	if testing.Short() {
		t.Skip("loads and analyses every scenario; skipped with -short")
	}
	logged := serverLog(t, dsn)
	if logged == nil {
		t.Log("the server's log cannot be read (set PGLOCKORDER_TEST_SERVERLOG): explaining the drivers' errors instead")
	}
	explained, read, total, hangs := 0, 0, 0, 0
	for _, s := range scenarios(t) {
		t.Run(s.name, func(t *testing.T) {
			prog, cycles := explainProgramOf(t, s)
			db := pgtest.ScratchDB(t)
			given := values(t, s.setup[len(s.setup)-1])
			for i, c := range cycles {
				sc := repro.Build(c, analyzer.FlagSchema(), nil)
				kind := explain.Deadlock
				if sc.Expect == repro.Hang {
					if logged == nil {
						continue // no error but lock_timeout's, which names no lock
					}
					// The server logs the wait that lock_timeout ended.
					kind = explain.Hang
					hangs++
				}
				total++
				setupDB(t, db, s)
				if logged != nil {
					logged() // skip what the setup logged
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				out, err := pgtest.Replay(ctx, db, sc, bindAll(sc, given))
				cancel()
				if err != nil {
					t.Errorf("cycle %d: %v", i+1, err)
					continue
				}
				var (
					input string
					l     *explain.Log
				)
				if logged != nil {
					// The server writes its log asynchronously, and other
					// tests (other packages' too) share it: read until
					// this replay's own report is there (up to 5 s).
					for tries := 0; tries < 25; tries++ {
						input += logged()
						if l, err = explain.Read(strings.NewReader(input)); err != nil {
							t.Fatal(err)
						}
						l.Reports = slices.DeleteFunc(l.Reports, func(r *explain.Report) bool { return !byAny(r, out.PIDs) })
						if slices.ContainsFunc(l.Reports, func(r *explain.Report) bool { return r.Kind == kind }) {
							break
						}
					}
				} else {
					var b strings.Builder
					for _, e := range out.Errors {
						if e.Code == "40P01" {
							fmt.Fprintf(&b, "%#v\n", e)
						}
					}
					input = b.String()
					if l, err = explain.Read(strings.NewReader(input)); err != nil {
						t.Fatal(err)
					}
				}
				exps := explain.Explain(l, prog)
				k := slices.IndexFunc(exps, func(x *explain.Explanation) bool { return x.Report.Kind == kind })
				if k < 0 {
					t.Errorf("cycle %d (%s): no %s read from:\n%s", i+1, sc.Title, kind, input)
					continue
				}
				x := exps[k]
				want := len(c.Steps)
				if want == 1 && c.Steps[0].IsUpgrade() {
					want = 2 // two runs of the same path
				}
				if kind == explain.Deadlock && len(x.Report.Processes) != want {
					t.Errorf("cycle %d (%s): %d processes, want %d", i+1, sc.Title, len(x.Report.Processes), want)
				}
				if logged == nil {
					// The driver's error has only the waits: the victim's
					// lock, named by its CONTEXT, is one the cycle waits for.
					read++
					for _, p := range x.Report.Processes {
						if p.Victim && p.Waits != nil && p.Waits.Class() != "" && !slices.ContainsFunc(c.Steps, waitsFor(p.Waits.Class())) {
							t.Errorf("cycle %d (%s): the victim waits for %s, which the cycle does not", i+1, sc.Title, p.Waits.Class())
						}
					}
					continue
				}
				var named []string
				for _, pe := range x.Processes {
					for _, cand := range pe.Candidates {
						named = append(named, cand.Func)
					}
				}
				namedSteps := 0
				for _, st := range c.Steps {
					if slices.Contains(named, lastFunc(st.WantedPath)) {
						namedSteps++
					}
				}
				// A deadlock names every path; a hang the one wait the
				// server saw (the other passes through the application).
				if kind == explain.Deadlock && namedSteps != len(c.Steps) || namedSteps == 0 {
					t.Errorf("cycle %d (%s): %d of %d paths named: %v", i+1, sc.Title, namedSteps, len(c.Steps), named)
				}
				if x.Status != explain.Explained {
					t.Errorf("cycle %d (%s): %s: %v; the log read:\n%s", i+1, sc.Title, x.Status, x.Why, input)
					continue
				}
				explained++
			}
		})
	}
	if logged == nil {
		t.Logf("%d of %d replayed deadlocks read from the drivers' errors", read, total)
	} else {
		t.Logf("%d of %d replayed deadlocks and hangs (%d hangs) explained by their finding from the server's log", explained, total, hangs)
	}

	// A negative: the example's two transactions one after the other.
	if logged == nil {
		return
	}
	s := scenarios(t)[0]
	db := pgtest.ScratchDB(t)
	setupDB(t, db, s)
	logged()
	c := pgtest.Connect(t, db)
	pgtest.Exec(t, c, "BEGIN; SELECT id FROM subscriptions WHERE account_id = 1 FOR UPDATE; SELECT id FROM usage_records WHERE account_id = 1 FOR UPDATE; COMMIT")
	pgtest.Exec(t, c, "BEGIN; UPDATE usage_records SET billed = billed WHERE account_id = 1; UPDATE subscriptions SET plan = plan WHERE account_id = 1; COMMIT")
	l, err := explain.Read(strings.NewReader(logged()))
	if err == nil {
		// Other tests' reports may be in the log too.
		l.Reports = slices.DeleteFunc(l.Reports, func(r *explain.Report) bool { return !byAny(r, []uint32{c.PgConn().PID()}) })
	}
	if err != nil || len(l.Reports) != 0 {
		t.Errorf("serial transactions: %v, %d reports", err, len(l.Reports))
	}
}

// byAny reports whether one of the report's processes is one of pids:
// the report is of that replay.
func byAny(r *explain.Report, pids []uint32) bool {
	return slices.ContainsFunc(r.Processes, func(p explain.Process) bool {
		return slices.Contains(pids, uint32(p.PID))
	})
}

// lastFunc is the function of a path's innermost frame: where the
// statement runs.
func lastFunc(path []lockgraph.Frame) string {
	if len(path) == 0 {
		return ""
	}
	return path[len(path)-1].Func
}

// waitsFor returns whether a step of a cycle waits for the lock a server
// named: its class, or, for an advisory key known only at run time (which
// the reproducer binds to a value), any advisory key. Which process the
// server makes the victim is a matter of timing, so the victim may be the
// one waiting for that key.
func waitsFor(named string) func(*lockgraph.Edge) bool {
	return func(e *lockgraph.Edge) bool {
		w := e.Wanted.Class
		return w.Key().String() == named || w.IsAdvisory() && w.RunTime() && strings.HasPrefix(named, "advisory:")
	}
}
