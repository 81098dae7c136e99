package report_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const root = "/src/app/"

// rel is the Options.Rel used by the golden tests: it strips root.
func rel(pos string) string { return strings.TrimPrefix(pos, root) }

func lock(class string, m lockmodel.Mode) lockgraph.Lock {
	return lockgraph.Lock{Class: lockgraphtest.Class(class), Mode: m, Waits: true}
}

func sessionLock(class string, m lockmodel.Mode) lockgraph.Lock {
	l := lock(class, m)
	l.Session = true
	return l
}

func frame(fn, pos, what string) lockgraph.Frame {
	return lockgraph.Frame{Func: fn, Pos: lockgraphtest.Position(root + pos), What: what}
}

// step builds an edge of fn that takes held at heldPos and then waits for
// wanted at wantedPos, each with a single frame.
func step(fn string, held lockgraph.Lock, heldPos, heldWhat string, wanted lockgraph.Lock, wantedPos, wantedWhat string) *lockgraph.Edge {
	return &lockgraph.Edge{
		Held: held, Wanted: wanted, Func: fn, Pkg: "example.com/app",
		HeldPath:   []lockgraph.Frame{frame(fn, heldPos, heldWhat)},
		WantedPath: []lockgraph.Frame{frame(fn, wantedPos, wantedWhat)},
	}
}

// cycle builds a cycle by hand; the functions of the steps other than the
// breaker are taken to be distinct, so the followers are their Agree sum.
func cycle(sev lockgraph.Severity, breaker int, agree []int, steps ...*lockgraph.Edge) *lockgraph.Cycle {
	c := &lockgraph.Cycle{Steps: steps, Severity: sev, Breaker: breaker, Agree: agree}
	for i, n := range agree {
		if breaker >= 0 && i != breaker {
			c.Followers += n
		}
	}
	return c
}

func cycles() map[string]*lockgraph.Cycle {
	fu, nku := lockmodel.ForUpdate, lockmodel.ForNoKeyUpdate
	callChain := step("billing.InvoiceAccount",
		lock("row:subscriptions", fu), "billing/invoice.go:32:19", "SELECT ... FOR UPDATE in a transaction",
		lock("row:usage_records", fu), "billing/invoice.go:36:23", "calls store.LockUsage")
	callChain.WantedPath = append(callChain.WantedPath,
		frame("store.LockUsage", "store/usage.go:14:20", "SELECT ... FOR UPDATE in a transaction"),
		frame("store.lockRows", "store/rows.go:9:5", "SELECT ... FOR UPDATE in a transaction"))
	selfDeadlock := step("jobs.Reassign",
		lock("row:jobs", fu), "jobs/reassign.go:20:12", "SELECT ... FOR UPDATE in a transaction",
		lock("row:jobs", nku), "jobs/reassign.go:25:12", "UPDATE on the pool")
	selfDeadlock.CrossConn = true
	crossConn := step("api.Transfer",
		lock("row:accounts", fu), "api/transfer.go:40:10", "SELECT ... FOR UPDATE in a transaction",
		lock("row:ledger", nku), "api/transfer.go:44:10", "UPDATE on the pool")
	crossConn.CrossConn = true

	return map[string]*lockgraph.Cycle{
		"inversion_call_chain": cycle(lockgraph.Detected, -1, []int{1, 1},
			callChain,
			step("api.UpdateSubscriptionTier",
				lock("row:usage_records", nku), "api/tier.go:23:22", "UPDATE in a transaction",
				lock("row:subscriptions", nku), "api/tier.go:27:22", "UPDATE in a transaction")),
		"breaker_second": cycle(lockgraph.Detected, 1, []int{3, 1},
			step("orders.Ship",
				lock("row:orders", fu), "orders/ship.go:10:2", "SELECT ... FOR UPDATE in a transaction",
				lock("row:items", fu), "orders/ship.go:14:2", "SELECT ... FOR UPDATE in a transaction"),
			step("items.Restock",
				lock("row:items", nku), "items/restock.go:8:2", "UPDATE in a transaction",
				lock("row:orders", nku), "items/restock.go:12:2", "UPDATE in a transaction")),
		"breaker_first": cycle(lockgraph.Detected, 0, []int{1, 2},
			step("items.Restock",
				lock("row:items", nku), "items/restock.go:8:2", "UPDATE in a transaction",
				lock("row:orders", nku), "items/restock.go:12:2", "UPDATE in a transaction"),
			step("orders.Ship",
				lock("row:orders", fu), "orders/ship.go:10:2", "SELECT ... FOR UPDATE in a transaction",
				lock("row:items", fu), "orders/ship.go:14:2", "SELECT ... FOR UPDATE in a transaction")),
		"session_advisory": cycle(lockgraph.SessionAdvisory, -1, []int{1, 1},
			step("cron.Run",
				sessionLock("advisory:(42)", lockmodel.AdvisoryExclusive), "cron/run.go:15:8", "pg_advisory_lock on conn",
				lock("table:reports", lockmodel.Share), "cron/run.go:19:8", "LOCK TABLE ... IN SHARE MODE in a transaction"),
			step("reports.Rebuild",
				lock("table:reports", lockmodel.RowExclusive), "reports/rebuild.go:30:3", "UPDATE in a transaction",
				lock("advisory:(42)", lockmodel.AdvisoryExclusive), "reports/rebuild.go:33:3", "pg_advisory_xact_lock in a transaction")),
		"cross_connection": cycle(lockgraph.CrossConnection, -1, []int{1, 1},
			crossConn,
			step("ledger.Post",
				lock("row:ledger", fu), "ledger/post.go:11:4", "SELECT ... FOR UPDATE in a transaction",
				lock("row:accounts", nku), "ledger/post.go:15:4", "UPDATE in a transaction")),
		"self_deadlock": cycle(lockgraph.CrossConnection, -1, []int{1}, selfDeadlock),
		"three_way": cycle(lockgraph.Detected, -1, []int{1, 1, 1},
			step("p.AB", lock("row:a", fu), "p/ab.go:1:1", "SELECT ... FOR UPDATE in a transaction",
				lock("row:b", fu), "p/ab.go:2:1", "SELECT ... FOR UPDATE in a transaction"),
			step("p.BC", lock("row:b", fu), "p/bc.go:1:1", "SELECT ... FOR UPDATE in a transaction",
				lock("row:c", fu), "p/bc.go:2:1", "SELECT ... FOR UPDATE in a transaction"),
			step("p.CA", lock("row:c", fu), "p/ca.go:1:1", "SELECT ... FOR UPDATE in a transaction",
				lock("row:a", fu), "p/ca.go:2:1", "SELECT ... FOR UPDATE in a transaction")),
		"three_way_breaker": cycle(lockgraph.Detected, 1, []int{2, 1, 3},
			step("p.AB", lock("row:a", fu), "p/ab.go:1:1", "SELECT ... FOR UPDATE in a transaction",
				lock("table:b", lockmodel.ShareRowExclusive), "p/ab.go:2:1", "LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE in a transaction"),
			step("p.BC", lock("table:b", lockmodel.ShareRowExclusive), "p/bc.go:1:1", "LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE in a transaction",
				lock("row:c", fu), "p/bc.go:2:1", "SELECT ... FOR UPDATE in a transaction"),
			step("p.CA", lock("row:c", fu), "p/ca.go:1:1", "SELECT ... FOR UPDATE in a transaction",
				lock("row:a", fu), "p/ca.go:2:1", "SELECT ... FOR UPDATE in a transaction")),
		"grouped": func() *lockgraph.Cycle {
			c := cycle(lockgraph.Detected, -1, []int{1, 1},
				step("shop.Checkout", lock("row:carts", fu), "shop/checkout.go:10:2", "SELECT ... FOR UPDATE in a transaction",
					lock("row:stock", nku), "shop/checkout.go:14:2", "UPDATE in a transaction"),
				step("shop.Restock", lock("row:stock", fu), "shop/restock.go:8:2", "SELECT ... FOR UPDATE in a transaction",
					lock("row:carts", nku), "shop/restock.go:12:2", "UPDATE in a transaction"))
			c.Also = [][]lockgraph.Class{
				{lockgraph.RowsOf("carts"), lockgraph.RowsOf("prices")},
				{lockgraph.RowsOf("prices"), lockgraph.RowsOf("stock")},
			}
			return c
		}(),
		"missing_gate": func() *lockgraph.Cycle {
			gate := lock("advisory:(900)", lockmodel.AdvisoryExclusive)
			gated := step("catalog.Publish", lock("row:products", nku), "catalog/publish.go:18:2", "UPDATE in a transaction",
				lock("row:prices", nku), "catalog/publish.go:21:2", "UPDATE in a transaction")
			gated.Gates = []lockgraph.Lock{gate}
			c := cycle(lockgraph.Detected, 1, []int{1, 1}, gated,
				step("catalog.Discount", lock("row:prices", nku), "catalog/discount.go:45:2", "UPDATE in a transaction",
					lock("row:products", nku), "catalog/discount.go:48:2", "UPDATE in a transaction"))
			c.MissingGate = &gate
			return c
		}(),
		"breaker_grouped": func() *lockgraph.Cycle {
			// One path against the order eleven others keep, directly or
			// through a third table: one report for every cycle it closes.
			c := cycle(lockgraph.Detected, 1, []int{3, 1},
				step("ledger.Post", lock("row:ledger", fu), "ledger/post.go:11:4", "SELECT ... FOR UPDATE in a transaction",
					lock("row:accounts", nku), "ledger/post.go:15:4", "UPDATE in a transaction"),
				step("ledger.Reverse", lock("row:accounts", fu), "ledger/reverse.go:20:4", "SELECT ... FOR UPDATE in a transaction",
					lock("row:ledger", nku), "ledger/reverse.go:24:4", "UPDATE in a transaction"))
			c.FollowerFuncs = []string{"ledger.Close", "ledger.Import", "ledger.Post", "ledger.Settle1", "ledger.Settle2",
				"ledger.Settle3", "ledger.Settle4", "ledger.Settle5", "ledger.Settle6", "ledger.Settle7", "ledger.Settle8"}
			c.Followers = len(c.FollowerFuncs)
			// Two more functions lock accounts, then ledger: not shown
			// as paths, each must change too.
			c.Breakers = []string{"ledger.Refund", "ledger.Void"}
			c.Group = 1
			for i := range 7 {
				mid := fmt.Sprintf("row:journal%d", i)
				if i < 5 {
					c.Also = append(c.Also, []lockgraph.Class{lockgraphtest.Class("row:accounts"), lockgraphtest.Class("row:ledger"), lockgraphtest.Class(mid)})
				}
				c.Folded++
			}
			return c
		}(),
		"upgrade": cycle(lockgraph.Detected, -1, []int{1},
			step("accounts.Debit",
				lock("row:accounts", lockmodel.ForShare), "accounts/debit.go:18:9", "SELECT ... FOR SHARE in a transaction",
				lock("row:accounts", nku), "accounts/debit.go:22:9", "UPDATE in a transaction")),
	}
}

func TestMessageGolden(t *testing.T) {
	for name, c := range cycles() {
		t.Run(name, func(t *testing.T) {
			got := report.Message(c, report.Options{Rel: rel}) + "\n"
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Message differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// TestMessageRel checks that positions are shown as Options.Rel returns
// them, and unchanged without it.
func TestMessageRel(t *testing.T) {
	c := cycles()["upgrade"]
	tests := []struct {
		name string
		opts report.Options
		want string
	}{
		{"nil Rel", report.Options{}, "    takes:      /src/app/accounts/debit.go:18:9: SELECT ... FOR SHARE in a transaction"},
		{"custom Rel", report.Options{Rel: func(string) string { return "HERE" }}, "    takes:      HERE:18:9: SELECT ... FOR SHARE in a transaction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(report.Message(c, tt.opts), "\n")
			if len(lines) != 5 {
				t.Fatalf("Message has %d lines, want 5:\n%s", len(lines), strings.Join(lines, "\n"))
			}
			if lines[2] != tt.want {
				t.Errorf("line 3 = %q, want %q", lines[2], tt.want)
			}
		})
	}
}

func TestCategory(t *testing.T) {
	cs := cycles()
	tests := []struct {
		name string
		c    *lockgraph.Cycle
		want string
	}{
		{"inversion", cs["inversion_call_chain"], report.CategoryInversion},
		{"three-way", cs["three_way"], report.CategoryInversion},
		{"upgrade", cs["upgrade"], report.CategoryInversion},
		{"session advisory", cs["session_advisory"], report.CategorySession},
		{"cross-connection", cs["cross_connection"], report.CategoryCrossConn},
		{"self-deadlock", cs["self_deadlock"], report.CategoryCrossConn},
		{"zero severity", &lockgraph.Cycle{}, report.CategoryInversion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := report.Category(tt.c); got != tt.want {
				t.Errorf("Category = %q, want %q", got, tt.want)
			}
		})
	}
	// The category names are part of the output format (README, -json).
	names := []string{report.CategoryInversion, report.CategorySession, report.CategoryCrossConn, report.CategoryPoolAdvisor}
	want := []string{"lock-order", "session-advisory-cycle", "cross-connection", "session-advisory-on-pool"}
	for i := range names {
		if names[i] != want[i] {
			t.Errorf("category %d = %q, want %q", i, names[i], want[i])
		}
	}
}

func TestLeakMessage(t *testing.T) {
	const tail = " is taken on a connection pool: the unlock may run on another pooled connection, and the lock " +
		"then stays with a connection nobody owns; take it on a dedicated connection (pool.Acquire / db.Conn) and " +
		"unlock it there, or use pg_advisory_xact_lock inside a transaction"
	tests := []struct {
		name string
		lock lockgraph.Lock
		want string
	}{
		{"constant key", sessionLock("advisory:(42)", lockmodel.AdvisoryExclusive),
			"session-level advisory lock (42)" + tail},
		{"two-part key", sessionLock("advisory:(1, 2)", lockmodel.AdvisoryShared),
			"session-level advisory lock (1, 2)" + tail},
		{"run-time key", sessionLock("advisory@cron/run.go:15", lockmodel.AdvisoryExclusive),
			"session-level advisory lock taken at cron/run.go:15" + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := report.LeakMessage(tt.lock); got != tt.want {
				t.Errorf("LeakMessage =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestUpgradeFixCoversBoth checks that the lock an upgrade's fix tells the
// developer to take first covers both the held and the wanted mode: if it
// does not, taking it first and the other one later is an upgrade again.
func TestUpgradeFixCoversBoth(t *testing.T) {
	modes := map[string]lockmodel.Mode{}
	for m := lockmodel.Mode(1); m < 64; m++ {
		if m.Kind() != 0 {
			modes[m.String()] = m
		}
	}
	tests := []struct {
		name         string
		held, wanted lockgraph.Lock
	}{
		{name: "FOR SHARE then FOR UPDATE", held: lock("row:t", lockmodel.ForShare), wanted: lock("row:t", lockmodel.ForUpdate)},
		{name: "FOR KEY SHARE then FOR UPDATE", held: lock("row:t", lockmodel.ForKeyShare), wanted: lock("row:t", lockmodel.ForUpdate)},
		{name: "ACCESS SHARE then ACCESS EXCLUSIVE", held: lock("table:t", lockmodel.AccessShare), wanted: lock("table:t", lockmodel.AccessExclusive)},
		{name: "advisory shared then exclusive", held: lock("advisory:(1)", lockmodel.AdvisoryShared), wanted: lock("advisory:(1)", lockmodel.AdvisoryExclusive)},
		{
			name: "SHARE then ROW EXCLUSIVE", held: lock("table:t", lockmodel.Share), wanted: lock("table:t", lockmodel.RowExclusive),
		},
		{
			name: "ROW EXCLUSIVE then SHARE", held: lock("table:t", lockmodel.RowExclusive), wanted: lock("table:t", lockmodel.Share),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := step("p.F", tt.held, "p/f.go:1:1", "first", tt.wanted, "p/f.go:2:1", "second")
			if !e.IsUpgrade() {
				t.Fatalf("test edge is no upgrade")
			}
			msg := report.Message(cycle(lockgraph.Detected, -1, []int{1}, e), report.Options{})
			const marker = "in p.F, take "
			i := strings.Index(msg, marker)
			if i < 0 {
				t.Fatalf("no %q in message:\n%s", marker, msg)
			}
			name, _, _ := strings.Cut(msg[i+len(marker):], " the first time")
			m, ok := modes[name]
			if !ok {
				t.Fatalf("fix names unknown mode %q", name)
			}
			if !lockgraph.Covers(m, tt.held.Mode) || !lockgraph.Covers(m, tt.wanted.Mode) {
				t.Errorf("fix says take %s first, which does not cover both %s and %s", m, tt.held.Mode, tt.wanted.Mode)
			}
		})
	}
}
