package repro_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/repro"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const root = "/src/app/"

func rel(pos string) string { return strings.TrimPrefix(pos, root) }

func lock(class string, m lockmodel.Mode) lockgraph.Lock {
	return lockgraph.Lock{Class: lockgraphtest.Class(class), Mode: m, Waits: true}
}

// step builds an edge of fn that takes held with heldSQL at heldPos and then
// waits for wanted with wantSQL at wantPos.
func step(fn string, held lockgraph.Lock, heldPos, heldSQL string, wanted lockgraph.Lock, wantPos, wantSQL string) *lockgraph.Edge {
	return &lockgraph.Edge{
		Held: held, Wanted: wanted, Func: fn, Pkg: "example.com/app",
		HeldPath:   []lockgraph.Frame{{Func: fn, Pos: lockgraphtest.Position(root + heldPos), What: "takes", SQL: heldSQL}},
		WantedPath: []lockgraph.Frame{{Func: fn, Pos: lockgraphtest.Position(root + wantPos), What: "waits", SQL: wantSQL}},
	}
}

// fkStep is step with the frames' descriptions given, as the analysis
// writes them for locks a schema implies.
func fkStep(fn string, held lockgraph.Lock, heldPos, heldSQL, heldWhat string, wanted lockgraph.Lock, wantPos, wantSQL, wantWhat string) *lockgraph.Edge {
	e := step(fn, held, heldPos, heldSQL, wanted, wantPos, wantSQL)
	e.HeldPath[0].What, e.WantedPath[0].What = heldWhat, wantWhat
	return e
}

func cycles() map[string]*lockgraph.Cycle {
	fu, nku, fs := lockmodel.ForUpdate, lockmodel.ForNoKeyUpdate, lockmodel.ForShare
	cross := step("jobs.Reassign",
		lock("row:jobs", fu), "jobs/reassign.go:20:12", "SELECT id FROM jobs WHERE id = $1 FOR UPDATE",
		lock("row:jobs", nku), "jobs/reassign.go:25:12", "UPDATE jobs SET owner = $2 WHERE id = $1")
	cross.CrossConn = true
	session := step("locks.Run",
		lockgraph.Lock{Class: lockgraphtest.Class("advisory:(42)"), Mode: lockmodel.AdvisoryExclusive, Waits: true, Session: true}, "locks/run.go:10:3", "SELECT pg_advisory_lock(42)",
		lock("row:accounts", nku), "locks/run.go:12:3", "UPDATE accounts SET balance = 0 WHERE id = $1")
	multi := "SELECT id FROM journals WHERE id = 1 FOR UPDATE; SELECT id FROM postings WHERE journal_id = 1 FOR UPDATE"
	missing := step("api.Unknown",
		lock("row:a", fu), "api/u.go:3:3", "",
		lock("row:b", fu), "api/u.go:4:3", "UPDATE b SET v = 1 WHERE id = $1")
	return map[string]*lockgraph.Cycle{
		"inversion": {Severity: lockgraph.Detected, Breaker: -1, Steps: []*lockgraph.Edge{
			step("billing.InvoiceAccount",
				lock("row:subscriptions", fu), "billing/invoice.go:32:19", "SELECT plan FROM subscriptions WHERE account_id = $1 FOR UPDATE",
				lock("row:usage_records", fu), "billing/invoice.go:36:23", "SELECT id FROM usage_records WHERE account_id = $1 FOR UPDATE"),
			step("api.UpdateSubscriptionTier",
				lock("row:usage_records", nku), "api/tier.go:23:22", "UPDATE usage_records SET rate = 2 WHERE account_id = $1",
				lock("row:subscriptions", nku), "api/tier.go:27:22", "UPDATE subscriptions SET plan = $2 WHERE account_id = $1"),
		}},
		"upgrade": {Severity: lockgraph.Detected, Breaker: -1, Steps: []*lockgraph.Edge{
			step("accounts.Debit",
				lock("row:accounts", fs), "accounts/debit.go:10:2", "SELECT balance FROM accounts WHERE id = $1 FOR SHARE",
				lock("row:accounts", nku), "accounts/debit.go:14:2", "UPDATE accounts SET balance = balance - $2 WHERE id = $1"),
		}},
		"cross_connection": {Severity: lockgraph.CrossConnection, Breaker: -1, Steps: []*lockgraph.Edge{cross}},
		"session_advisory": {Severity: lockgraph.SessionAdvisory, Breaker: -1, Steps: []*lockgraph.Edge{
			session,
			step("accounts.Close",
				lock("row:accounts", nku), "accounts/close.go:8:2", "UPDATE accounts SET closed = true WHERE id = $1",
				lockgraph.Lock{Class: lockgraphtest.Class("advisory:(42)"), Mode: lockmodel.AdvisoryExclusive, Waits: true}, "accounts/close.go:9:2", "SELECT pg_advisory_xact_lock(42)"),
		}},
		"multi_statement": {Severity: lockgraph.Detected, Breaker: -1, Steps: []*lockgraph.Edge{
			step("ledger.PostBoth",
				lock("row:journals", fu), "ledger/post.go:5:2", multi,
				lock("row:postings", fu), "ledger/post.go:5:2", multi),
			step("ledger.Unpost",
				lock("row:postings", nku), "ledger/post.go:9:2", "UPDATE postings SET posted = false WHERE journal_id = $1",
				lock("row:journals", nku), "ledger/post.go:10:2", "UPDATE journals SET posted = false WHERE id = $1"),
		}},
		"advisory_params": {Severity: lockgraph.Detected, Breaker: -1, Steps: []*lockgraph.Edge{
			step("jobs.Run",
				lockgraph.Lock{Class: lockgraphtest.Class("advisory:(42)"), Mode: lockmodel.AdvisoryExclusive, Waits: true}, "jobs/run.go:10:3", "SELECT pg_advisory_xact_lock($1)",
				lockgraph.Lock{Class: lockgraphtest.Class("advisory:(hashtext('reports'))"), Mode: lockmodel.AdvisoryExclusive, Waits: true}, "jobs/run.go:12:3", "SELECT pg_advisory_xact_lock(hashtext($1))"),
			step("jobs.Report",
				lockgraph.Lock{Class: lockgraphtest.Class("advisory:(hashtext('reports'))"), Mode: lockmodel.AdvisoryExclusive, Waits: true}, "jobs/report.go:8:2", "SELECT pg_advisory_xact_lock(hashtext($1))",
				lockgraph.Lock{Class: lockgraphtest.Class("advisory@jobs/report.go:9:2"), Mode: lockmodel.AdvisoryExclusive, Waits: true}, "jobs/report.go:9:2", "SELECT pg_advisory_xact_lock($1)"),
		}},
		"foreign_key": {Severity: lockgraph.Detected, Breaker: -1, Steps: []*lockgraph.Edge{
			fkStep("blog.Comment",
				lock("row:audit", nku), "blog/comment.go:10:2", "UPDATE audit SET n = n + 1 WHERE id = $1", "UPDATE in a transaction",
				lock("row:posts", lockmodel.ForKeyShare), "blog/comment.go:12:2", "INSERT INTO comments (post_id, body) VALUES ($1, $2)", "INSERT (foreign key check on posts) in a transaction"),
			fkStep("blog.DeletePost",
				lock("row:comments", fu), "blog/delete.go:8:2", "DELETE FROM posts WHERE id = $1", "DELETE (ON DELETE CASCADE of comments) in a transaction",
				lock("row:audit", nku), "blog/delete.go:9:2", "UPDATE audit SET n = n + 1 WHERE id = $1", "UPDATE in a transaction"),
		}},
		"missing_sql": {Severity: lockgraph.Detected, Breaker: -1, Steps: []*lockgraph.Edge{
			missing,
			step("api.Other",
				lock("row:b", fu), "api/o.go:3:3", "SELECT 1 FROM b WHERE id = $1 FOR UPDATE",
				lock("row:a", fu), "api/o.go:4:3", "SELECT 1 FROM a WHERE id = $1 FOR UPDATE"),
		}},
	}
}

// TestRenderGolden checks the rendered scripts against testdata/*.golden
// (go test ./internal/repro -update rewrites them).
func TestRenderGolden(t *testing.T) {
	for name, c := range cycles() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := repro.Render(&buf, 1, repro.Build(c, nil, rel)); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/repro -update to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("reproducer differs from %s:\n%s", golden, got)
			}
		})
	}
}

// TestBuild checks the structure the ground-truth tests replay.
func TestBuild(t *testing.T) {
	cs := cycles()
	var sc *repro.Script
	for _, tc := range []struct {
		name      string
		expect    repro.Expect
		sessions  int
		waitOrder []int
		holds     []int // number of hold steps per session
		missing   int
	}{
		{"inversion", repro.Deadlock, 2, []int{0, 1}, []int{1, 1}, 0},
		{"upgrade", repro.Deadlock, 2, []int{0, 1}, []int{1, 1}, 0},
		{"cross_connection", repro.Hang, 2, []int{1}, []int{1, 0}, 0},
		{"session_advisory", repro.DeadlockSessionLock, 2, []int{0, 1}, []int{1, 1}, 0},
		{"multi_statement", repro.Deadlock, 2, []int{0, 1}, []int{1, 1}, 0},
		{"advisory_params", repro.Deadlock, 2, []int{0, 1}, []int{1, 1}, 0},
		{"missing_sql", repro.Deadlock, 2, []int{0, 1}, []int{0, 1}, 1},
	} {
		sc = repro.Build(cs[tc.name], nil, rel)
		if sc.Expect != tc.expect || len(sc.Sessions) != tc.sessions || len(sc.Missing) != tc.missing {
			t.Errorf("%s: expect %v, %d sessions, %d missing; want %v, %d, %d", tc.name, sc.Expect, len(sc.Sessions), len(sc.Missing), tc.expect, tc.sessions, tc.missing)
			continue
		}
		if tc.name != "missing_sql" && !equal(sc.WaitOrder, tc.waitOrder) {
			t.Errorf("%s: wait order %v, want %v", tc.name, sc.WaitOrder, tc.waitOrder)
		}
		for i, s := range sc.Sessions {
			if len(s.Hold) != tc.holds[i] {
				t.Errorf("%s: session %s holds with %d steps, want %d", tc.name, s.Name, len(s.Hold), tc.holds[i])
			}
		}
	}
	// Advisory keys the Go code binds are replayed as they are; only an
	// unknown key becomes a placeholder.
	sc = repro.Build(cs["advisory_params"], nil, rel)
	if got := sc.Sessions[0].Hold[0].SQL; got != "SELECT pg_advisory_xact_lock(42)" {
		t.Errorf("advisory_params: hold step %q", got)
	}
	if got := sc.Sessions[1].Hold[0].SQL; got != "SELECT pg_advisory_xact_lock(hashtext('reports'))" {
		t.Errorf("advisory_params: hold step %q", got)
	}
	if got := sc.Sessions[1].Wait.SQL; got != "SELECT pg_advisory_xact_lock(:'key1_p1')" {
		t.Errorf("advisory_params: wait step %q", got)
	}
	// The two statements of one string are replayed apart.
	sc = repro.Build(cs["multi_statement"], nil, rel)
	if got := sc.Sessions[0].Hold[0].SQL; got != "SELECT id FROM journals WHERE id = 1 FOR UPDATE" {
		t.Errorf("multi_statement: hold step %q", got)
	}
	if got := sc.Sessions[0].Wait.SQL; got != "SELECT id FROM postings WHERE journal_id = 1 FOR UPDATE" {
		t.Errorf("multi_statement: wait step %q", got)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBind(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		vals map[string]string
		want string
	}{
		{"UPDATE a SET v = :'a_p2' WHERE id = :'a_p1'", map[string]string{"a_p1": "1", "a_p2": "x'y"}, "UPDATE a SET v = 'x''y' WHERE id = '1'"},
		{"SELECT :'missing'", nil, "SELECT NULL"},
	} {
		if got := repro.Bind(tc.sql, tc.vals); got != tc.want {
			t.Errorf("Bind(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestVerdict runs rendered scripts with a stand-in for psql that prints
// what a server would say to session FAKE_<name>: the script's last line
// and exit status say whether the expected outcome happened (3), did not
// (0) or the sessions failed (1).
func TestVerdict(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	bin := t.TempDir()
	// The fake reads the session's SQL and prints the output configured
	// for its application_name.
	fake := "#!/bin/sh\nname=$(sed -n \"s/^SET application_name = '\\(.*\\)';$/\\1/p\")\neval \"printf '%b' \\\"\\$FAKE_$name\\\"\"\n"
	if err := os.WriteFile(filepath.Join(bin, "psql"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	const (
		deadlock = `psql:<stdin>:9: ERROR:  deadlock detected\nDETAIL:  Process 1 waits for ShareLock on transaction 2.\n`
		timeout  = `psql:<stdin>:9: ERROR:  canceling statement due to lock timeout\n`
		noTable  = `psql:<stdin>:7: ERROR:  relation "bins" does not exist\n`
	)
	for _, tc := range []struct {
		cycle       string
		s1, s2      string
		wantCode    int
		wantVerdict string
	}{
		{"inversion", deadlock, "", 3, "reproduced: yes (deadlock detected (40P01))"},
		{"inversion", "", "", 0, "reproduced: no"},
		{"inversion", noTable, noTable, 1, "reproduced: no (the sessions failed: see the errors above)"},
		{"cross_connection", "", timeout, 3, "reproduced: yes (no deadlock error, a hang ended by lock_timeout (55P03))"},
		{"cross_connection", deadlock, timeout, 0, "reproduced: no"},
		{"session_advisory", deadlock, "", 0, "reproduced: no"},
		{"session_advisory", deadlock, timeout, 3, "reproduced: yes (deadlock detected (40P01), then a wait for the session advisory lock ended by lock_timeout (55P03))"},
	} {
		t.Run(tc.cycle, func(t *testing.T) {
			sc := repro.Build(cycles()[tc.cycle], nil, rel)
			var script bytes.Buffer
			if err := repro.Render(&script, 1, sc); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-s")
			cmd.Stdin = &script
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "PGLOCKORDER_STEP=0", "PGLOCKORDER_TIMEOUT=0",
				"FAKE_s1="+tc.s1, "FAKE_s2="+tc.s2)
			for _, v := range sc.Vars {
				cmd.Env = append(cmd.Env, v.Name+"=1")
			}
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if code != tc.wantCode || lines[len(lines)-1] != tc.wantVerdict {
				t.Errorf("exit %d, last line %q; want %d, %q\n%s", code, lines[len(lines)-1], tc.wantCode, tc.wantVerdict, out)
			}
		})
	}
}
