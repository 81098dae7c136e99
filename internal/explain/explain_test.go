package explain

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// program is two functions that update accounts and ledger in opposite
// orders, in transactions, with the cycle between them as a finding.
func program(extra ...lockseq.Site) Program {
	sites := []lockseq.Site{
		{Func: "bank.Transfer", Pos: "bank/transfer.go:10:5", SQL: "UPDATE accounts SET balance = balance - $2 WHERE id = $1", Tx: true},
		{Func: "bank.Transfer", Pos: "bank/transfer.go:11:5", SQL: "UPDATE ledger SET total = total + $1 WHERE id = 1", Tx: true},
		{Func: "bank.Close", Pos: "bank/close.go:20:5", SQL: "UPDATE ledger SET closed = true WHERE id = $1", Tx: true},
		{Func: "bank.Close", Pos: "bank/close.go:21:5", SQL: "UPDATE accounts SET frozen = true WHERE id = $1", Tx: true},
	}
	sites = append(sites, extra...)
	lock := func(table string) lockgraph.Lock {
		return lockgraph.Lock{Class: lockgraph.RowsOf(table), Mode: lockmodel.ForNoKeyUpdate, Waits: true}
	}
	frame := func(s lockseq.Site) []lockgraph.Frame {
		return []lockgraph.Frame{{Func: s.Func, Pos: position(s.Pos), What: "UPDATE in a transaction", SQL: s.SQL}}
	}
	edges := []*lockgraph.Edge{
		{Held: lock("accounts"), Wanted: lock("ledger"), Func: "bank.Transfer", Pkg: "bank", HeldPath: frame(sites[0]), WantedPath: frame(sites[1])},
		{Held: lock("ledger"), Wanted: lock("accounts"), Func: "bank.Close", Pkg: "bank", HeldPath: frame(sites[2]), WantedPath: frame(sites[3])},
	}
	var fs []Finding
	for _, c := range lockgraph.New(edges).Cycles(4) {
		fs = append(fs, Finding{Category: "lock-order", Posn: c.Anchor().Anchor().String(), Message: "lock-order inversion: accounts and ledger\n  fix: take accounts before ledger on every path", Cycle: c})
	}
	return Program{Sites: sites, Edges: edges, Findings: fs}
}

// position parses "file:line:col".
func position(s string) token.Position {
	parts := strings.Split(s, ":")
	line, _ := strconv.Atoi(parts[1])
	col, _ := strconv.Atoi(parts[2])
	return token.Position{Filename: parts[0], Line: line, Column: col}
}

// deadlockLog is a server's report of a deadlock between two statements.
func deadlockLog(victim, other, context string) string {
	return fmt.Sprintf(`2026-12-02 02:32:55.333 UTC [101] ERROR:  deadlock detected
2026-12-02 02:32:55.333 UTC [101] DETAIL:  Process 101 waits for ShareLock on transaction 739; blocked by process 102.
	Process 102 waits for ShareLock on transaction 738; blocked by process 101.
	Process 101: %s
	Process 102: %s
2026-12-02 02:32:55.333 UTC [101] HINT:  See server log for query details.
2026-12-02 02:32:55.333 UTC [101] CONTEXT:  %s
2026-12-02 02:32:55.333 UTC [101] STATEMENT:  %s
`, victim, other, context, victim)
}

func TestExplain(t *testing.T) {
	tests := []struct {
		name   string
		log    string
		extra  []lockseq.Site
		status Status
		want   []string // in the rendered explanation
	}{
		{
			name: "explained",
			log: deadlockLog("UPDATE ledger SET total = total + 5 WHERE id = 1", "UPDATE accounts SET frozen = true WHERE id = 7",
				`while updating tuple (0,1) in relation "ledger"`),
			status: Explained,
			want:   []string{"bank/transfer.go:11:5 bank.Transfer fingerprint", "bank/close.go:21:5 bank.Close fingerprint", "path bank.Transfer holds rows of accounts", "finding lock-order full fix take accounts before ledger"},
		},
		{
			name: "statement not in the code",
			log: deadlockLog("UPDATE ledger SET total = total + 5 WHERE id = 1", "DELETE FROM audit WHERE id = 7",
				`while updating tuple (0,1) in relation "ledger"`),
			status: Partly,
			want:   []string{"process 102: statement not found in the code"},
		},
		{
			name: "SQL built at run time",
			log: deadlockLog("DELETE FROM audit WHERE id = 1", "DELETE FROM audit WHERE id = 2",
				`while deleting tuple (0,1) in relation "audit"`),
			extra:  []lockseq.Site{{Func: "bank.Purge", Pos: "bank/purge.go:5:5", Dynamic: true, Tx: true}},
			status: Unexplained,
			want:   []string{"1 call site(s) send SQL built at run time, which may be it (e.g. bank/purge.go:5:5 in bank.Purge)"},
		},
		{
			name: "lock the model does not know",
			log: deadlockLog("INSERT INTO ledger (id) VALUES (1)", "UPDATE accounts SET frozen = true WHERE id = 7",
				`while inserting index tuple (0,1) in relation "ledger_pkey"`),
			extra:  []lockseq.Site{{Func: "bank.Open", Pos: "bank/open.go:5:5", SQL: "INSERT INTO ledger (id) VALUES ($1)", Tx: true}},
			status: Partly,
			want:   []string{"the lock model takes no row lock for this statement, but the server made it wait for ShareLock on transaction 739 (while inserting index tuple (0,1) in relation \"ledger_pkey\")"},
		},
		{
			name: "shape match",
			log: deadlockLog(`UPDATE "public"."ledger" SET "total" = 5, "note" = 'x' WHERE "id" = 1`, "UPDATE accounts SET frozen = true WHERE id = 7",
				`while updating tuple (0,1) in relation "ledger"`),
			status: Explained,
			want:   []string{"bank/transfer.go:11:5 bank.Transfer tables"},
		},
		{
			name: "test code ranks last",
			log: deadlockLog("UPDATE ledger SET closed = true WHERE id = 1", "UPDATE accounts SET frozen = true WHERE id = 7",
				`while updating tuple (0,1) in relation "ledger"`),
			extra:  []lockseq.Site{{Func: "bank.TestClose", Pos: "bank/a_test.go:5:5", SQL: "UPDATE ledger SET closed = true WHERE id = $1", Tx: true}},
			status: Explained, // UPDATE ledger is also at transfer.go:11 (same kind, same table)
			want:   []string{"bank/close.go:20:5 bank.Close fingerprint\nbank/a_test.go:5:5 bank.TestClose fingerprint"},
		},
		{
			name: "psql: blocked and blocking",
			log: ` blocked_pid | blocked_by |                  blocked_query                  |              blocking_query
-------------+------------+-------------------------------------------------+----------------------------------------------
        7001 | {7002}     | UPDATE ledger SET total = total + 5 WHERE id = 1 | UPDATE ledger SET closed = true WHERE id = 1
(1 row)
`,
			status: Explained,
			want:   []string{"bank/transfer.go:11:5 bank.Transfer fingerprint", "bank/close.go:20:5 bank.Close fingerprint", "finding lock-order full"},
		},
		{
			name: "psql: blocking statement elsewhere",
			log: `blocked_pid,blocked_by,blocked_query,blocking_query
7001,{7002},"UPDATE ledger SET total = total + 5 WHERE id = 1",SELECT pg_sleep(4);
`,
			status: Partly,
			want:   []string{"process 7002: statement not found in the code"},
		},
		{
			name: "hang: a detected cycle does not explain it",
			log: `2026-12-02 02:33:01.003 UTC [18296] LOG:  process 18296 still waiting for ShareLock on transaction 762 after 101.468 ms
2026-12-02 02:33:01.003 UTC [18296] DETAIL:  Process holding the lock: 18295. Wait queue: 18296.
2026-12-02 02:33:01.003 UTC [18296] CONTEXT:  while updating tuple (0,1) in relation "ledger"
2026-12-02 02:33:01.003 UTC [18296] STATEMENT:  UPDATE ledger SET total = total + 5 WHERE id = 1
2026-12-02 02:33:01.902 UTC [18296] ERROR:  canceling statement due to lock timeout
`,
			status: Partly,
			want:   []string{"finding lock-order full=false", "the findings that match are cycles PostgreSQL detects"},
		},
		{
			name:   "driver error without statements",
			log:    `&pgconn.PgError{Severity:"ERROR", Code:"40P01", Message:"deadlock detected", Detail:"Process 101 waits for ShareLock on transaction 739; blocked by process 102.\nProcess 102 waits for ShareLock on transaction 738; blocked by process 101.", Where:"while updating tuple (0,1) in relation \"ledger\""}` + "\n",
			status: Unexplained,
			want:   []string{"process 101: the input does not give its statement"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Read(strings.NewReader(tt.log))
			if err != nil {
				t.Fatal(err)
			}
			exps := Explain(l, program(tt.extra...))
			if len(exps) != 1 {
				t.Fatalf("%d explanations", len(exps))
			}
			x := exps[0]
			got := render(x)
			if x.Status != tt.status {
				t.Errorf("status %s, want %s\n%s", x.Status, tt.status, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
		})
	}
}

// render flattens an explanation for the checks above.
func render(x *Explanation) string {
	var b strings.Builder
	for _, p := range x.Processes {
		for _, c := range p.Candidates {
			fmt.Fprintf(&b, "%s %s %s\n", c.Pos, c.Func, c.Match)
		}
		for _, pa := range p.Paths {
			fmt.Fprintf(&b, "path %s holds %s at %s\n", pa.Func, pa.Holds, pa.HeldAt)
		}
	}
	for _, f := range x.Findings {
		fmt.Fprintf(&b, "finding %s full=%t fix %s\n", f.Category, f.Full, f.Fix)
	}
	for _, w := range x.Why {
		fmt.Fprintf(&b, "why %s\n", w)
	}
	return strings.ReplaceAll(b.String(), "full=true", "full")
}
