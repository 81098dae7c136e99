package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
)

func rowFindings() map[string]lockseq.RowFinding {
	anyIDs := lockseq.RowInfo{RowSet: lockmodel.RowSet{Multi: true, Why: "= ANY(...)"}}
	return map[string]lockseq.RowFinding{
		"rows_unordered_select": {
			Rule: lockseq.UnorderedRows, Lock: lock("row:accounts", lockmodel.ForUpdate), Rows: anyIDs,
			Path: []lockgraph.Frame{frame("ledger.LockAccounts", "ledger/lock.go:14:19", "SELECT ... FOR UPDATE in a transaction")},
		},
		"rows_unordered_update_via_helper": {
			Rule: lockseq.UnorderedRows, Lock: lock("row:invoices", lockmodel.ForNoKeyUpdate), Rows: anyIDs,
			Path: []lockgraph.Frame{
				frame("billing.Settle", "billing/settle.go:30:12", "calls store.Queries.SettleMany"),
				frame("store.Queries.SettleMany", "store/query.sql.go:88:20", "UPDATE on the caller's handle"),
			},
		},
		"rows_unordered_advisory": {
			Rule: lockseq.UnorderedRows, Lock: lock("advisory@ledger/lock.go:40:19", lockmodel.AdvisoryExclusive), Rows: anyIDs,
			Path: []lockgraph.Frame{frame("ledger.LockKeys", "ledger/lock.go:40:19", "pg_advisory_xact_lock in a transaction")},
		},
		"rows_loop_map": {
			Rule: lockseq.LoopOrder, Lock: lock("row:balances", lockmodel.ForNoKeyUpdate), Loop: "a map (Go randomises its order)",
			Path: []lockgraph.Frame{frame("ledger.ApplyCredits", "ledger/credits.go:22:23", "UPDATE in a transaction")},
		},
		"rows_caller_order_advisory": {
			Rule: lockseq.CallerOrder, Lock: lock("advisory:(?p2)|@ledger/lock.go:8:19", lockmodel.AdvisoryExclusive), Func: "ledger.GuardedTransfer",
			Keys:  [2]string{"from", "to"},
			First: []lockgraph.Frame{frame("ledger.GuardedTransfer", "ledger/transfer.go:20:19", "calls ledger.lockAccount")},
			Path:  []lockgraph.Frame{frame("ledger.GuardedTransfer", "ledger/transfer.go:23:9", "calls ledger.lockAccount")},
		},
		"rows_caller_order": {
			Rule: lockseq.CallerOrder, Lock: lock("row:accounts", lockmodel.ForNoKeyUpdate), Func: "ledger.Transfer",
			Keys:  [2]string{"from", "to"},
			First: []lockgraph.Frame{frame("ledger.Transfer", "ledger/transfer.go:12:19", "UPDATE in a transaction")},
			Path:  []lockgraph.Frame{frame("ledger.Transfer", "ledger/transfer.go:15:19", "UPDATE in a transaction")},
		},
	}
}

func TestRowMessageGolden(t *testing.T) {
	for name, f := range rowFindings() {
		t.Run(name, func(t *testing.T) {
			golden(t, name, report.RowMessage(f, report.Options{Rel: rel}))
		})
	}
	t.Run("rows_mismatch", func(t *testing.T) {
		this := lockseq.OrderedLock{Table: "blocks", Order: "hash DESC", Mode: lockmodel.ForUpdate,
			Pos: lockgraphtest.Position(root + "chain/reorg.go:18:19"), What: "SELECT ... FOR UPDATE in a transaction", Func: "chain.Reorg"}
		other := lockseq.OrderedLock{Table: "blocks", Order: "hash", Mode: lockmodel.ForUpdate,
			Pos: lockgraphtest.Position(root + "chain/prune.go:11:19"), What: "SELECT ... FOR UPDATE in a transaction", Func: "chain.Prune"}
		golden(t, "rows_mismatch", report.MismatchMessage(this, other, report.Options{Rel: rel}))
	})
}

func TestRowCategory(t *testing.T) {
	want := map[lockseq.RowRule]string{
		lockseq.UnorderedRows: "unordered-row-lock",
		lockseq.LoopOrder:     "loop-lock-order",
		lockseq.CallerOrder:   "caller-row-order",
	}
	for rule, cat := range want {
		if got := report.RowCategory(lockseq.RowFinding{Rule: rule}); got != cat {
			t.Errorf("RowCategory(rule %d) = %q, want %q", rule, got, cat)
		}
	}
	if report.CategoryOrderMismatch != "row-order-mismatch" {
		t.Errorf("CategoryOrderMismatch = %q", report.CategoryOrderMismatch)
	}
}

// golden compares got with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
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
		t.Errorf("message differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
