package findings

import (
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

func TestOrderMismatches(t *testing.T) {
	ordered := func(pos, table, order string, mode lockmodel.Mode) lockseq.OrderedLock {
		file, line, _ := strings.Cut(pos, ":")
		n, err := strconv.Atoi(line)
		if err != nil {
			t.Fatal(err)
		}
		return lockseq.OrderedLock{Table: table, Order: order, Mode: mode, Pos: token.Position{Filename: file, Line: n}}
	}
	fu, fs := lockmodel.ForUpdate, lockmodel.ForShare
	tests := []struct {
		name  string
		locks []lockseq.OrderedLock
		want  [][2]string // This.Pos, Other.Pos
	}{
		{"opposite directions", []lockseq.OrderedLock{ordered("a.go:1", "blocks", "hash", fu), ordered("b.go:1", "blocks", "hash DESC", fu)}, [][2]string{{"b.go:1", "a.go:1"}}},
		{"other keys", []lockseq.OrderedLock{ordered("a.go:1", "keys", "tenant_id, expires_at, key", fu), ordered("b.go:1", "keys", "tenant_id, key", fu)}, [][2]string{{"b.go:1", "a.go:1"}}},
		{"same order", []lockseq.OrderedLock{ordered("a.go:1", "blocks", "hash", fu), ordered("b.go:1", "blocks", "hash", fu)}, nil},
		{"prefix", []lockseq.OrderedLock{ordered("a.go:1", "slots", "task_id, inserted_at", fu), ordered("b.go:1", "slots", "task_id, inserted_at, retry", fu)}, nil},
		{"not a prefix by name", []lockseq.OrderedLock{ordered("a.go:1", "slots", "task", fu), ordered("b.go:1", "slots", "task_id", fu)}, [][2]string{{"b.go:1", "a.go:1"}}},
		{"other tables", []lockseq.OrderedLock{ordered("a.go:1", "blocks", "hash", fu), ordered("b.go:1", "headers", "hash DESC", fu)}, nil},
		{"shared locks", []lockseq.OrderedLock{ordered("a.go:1", "blocks", "hash", fs), ordered("b.go:1", "blocks", "hash DESC", fs)}, nil},
		{"share against update", []lockseq.OrderedLock{ordered("a.go:1", "blocks", "hash", fs), ordered("b.go:1", "blocks", "hash DESC", fu)}, [][2]string{{"b.go:1", "a.go:1"}}},
		{"each site once", []lockseq.OrderedLock{
			ordered("a.go:1", "blocks", "hash", fu), ordered("b.go:1", "blocks", "height", fu), ordered("c.go:1", "blocks", "hash DESC", fu),
		}, [][2]string{{"b.go:1", "a.go:1"}, {"c.go:1", "a.go:1"}}},
		{"test against production", []lockseq.OrderedLock{ordered("a.go:1", "blocks", "hash", fu), ordered("a_test.go:1", "blocks", "hash DESC", fu)}, nil},
		{"test against test", []lockseq.OrderedLock{ordered("a_test.go:1", "blocks", "hash", fu), ordered("b_test.go:1", "blocks", "hash DESC", fu)}, [][2]string{{"b_test.go:1", "a_test.go:1"}}},
		// Lines compare as numbers: line 113 comes after line 33.
		{"later line", []lockseq.OrderedLock{ordered("x.go:113", "blocks", "hash", fu), ordered("x.go:33", "blocks", "hash DESC", fu)}, [][2]string{{"x.go:113", "x.go:33"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][2]string
			for _, m := range OrderMismatches(tt.locks) {
				got = append(got, [2]string{m.This.Pos.String(), m.Other.Pos.String()})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("OrderMismatches = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("OrderMismatches = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestIsMigrationPackage(t *testing.T) {
	for path, want := range map[string]bool{
		"github.com/concourse/concourse/atc/db/migration/migrations": true,
		"example.com/app/internal/migrate":                           true,
		"example.com/app/db/Migrations":                              true,
		"example.com/app/store":                                      false,
		"example.com/app/migrationsutil":                             false,
	} {
		if got := MigrationPackage(path); got != want {
			t.Errorf("MigrationPackage(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestMigrationsOnly(t *testing.T) {
	edge := func(pkg string) *lockgraph.Edge { return &lockgraph.Edge{Pkg: pkg} }
	tests := []struct {
		name string
		pkgs []string
		want bool
	}{
		{"up against down", []string{"app/db/migrations", "app/db/migrations"}, true},
		{"upgrade in one migration", []string{"app/migrate"}, true},
		{"migration against the application", []string{"app/db/migrations", "app/store"}, false},
		{"application only", []string{"app/store", "app/api"}, false},
	}
	for _, tt := range tests {
		c := &lockgraph.Cycle{}
		for _, p := range tt.pkgs {
			c.Steps = append(c.Steps, edge(p))
		}
		if got := MigrationsOnly(c); got != tt.want {
			t.Errorf("%s: MigrationsOnly = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSeparateTestBinaries(t *testing.T) {
	step := func(pkg, file string) *lockgraph.Edge {
		return &lockgraph.Edge{Pkg: pkg, HeldPath: []lockgraph.Frame{{Pos: token.Position{Filename: file, Line: 1}}}}
	}
	tests := []struct {
		name  string
		steps []*lockgraph.Edge
		want  bool
	}{
		{"two packages' tests", []*lockgraph.Edge{step("app/orders", "orders/orders_test.go"), step("app/refunds", "refunds/refunds_test.go")}, true},
		{"internal and external tests of one package", []*lockgraph.Edge{step("app/orders", "orders/a_test.go"), step("app/orders_test", "orders/b_test.go")}, false},
		{"one package's tests", []*lockgraph.Edge{step("app/ledger", "ledger/a_test.go"), step("app/ledger", "ledger/b_test.go")}, false},
		{"a test against production", []*lockgraph.Edge{step("app/orders", "orders/orders_test.go"), step("app/refunds", "refunds/refunds.go")}, false},
		{"a test helper package runs in any binary", []*lockgraph.Edge{step("app/orders", "orders/orders_test.go"), step("app/internal/testdb", "internal/testdb/seed.go")}, false},
		{"production only", []*lockgraph.Edge{step("app/orders", "orders/orders.go"), step("app/refunds", "refunds/refunds.go")}, false},
	}
	for _, tt := range tests {
		if got := SeparateTestBinaries(&lockgraph.Cycle{Steps: tt.steps}); got != tt.want {
			t.Errorf("%s: SeparateTestBinaries = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFoldStatements checks that one statement reported from several
// packages becomes one finding at the first position, naming every
// transaction once, and that other findings are left as they are.
func TestFoldStatements(t *testing.T) {
	pos := func(file string, line int) token.Position {
		return token.Position{Filename: file, Line: line, Column: 2}
	}
	fs := []Finding{
		{Pkg: "b", Pos: pos("b/b.go", 9), Category: "unordered-row-lock", Message: "m" + alsoLine([]string{"b.Y"}), Statement: "s1", Funcs: []string{"b.X", "b.Y"}},
		{Pkg: "a", Pos: pos("a/a.go", 3), Category: "lock-order", Message: "cycle"},
		{Pkg: "a", Pos: pos("a/a.go", 5), Category: "unordered-row-lock", Message: "m", Statement: "s1", Funcs: []string{"a.Z"}},
		{Pkg: "c", Pos: pos("c/c.go", 1), Category: "unordered-row-lock", Message: "other", Statement: "s2", Funcs: []string{"c.W"}},
		{Pkg: "d", Pos: pos("d/d.go", 1), Category: "unordered-row-lock", Message: "m" + alsoLine([]string{"b.X"}), Statement: "s1", Funcs: []string{"d.V", "b.X"}},
	}
	got := FoldStatements(fs)
	want := []Finding{fs[1], fs[2], fs[3]}
	want[1].Message = "m" + alsoLine([]string{"b.X", "b.Y", "d.V"})
	want[1].Funcs = []string{"a.Z", "b.X", "b.Y", "d.V"}
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Pos != want[i].Pos || got[i].Message != want[i].Message || !slices.Equal(got[i].Funcs, want[i].Funcs) {
			t.Errorf("finding %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestWithdrawLent checks that only the lent findings some call judged are
// withdrawn.
func TestWithdrawLent(t *testing.T) {
	fs := []Finding{{Message: "judged", Lent: "k1"}, {Message: "not judged", Lent: "k2"}, {Message: "not lent"}}
	got := WithdrawLent(fs, map[string]bool{"k1": true, "": true})
	if len(got) != 2 || got[0].Message != "not judged" || got[1].Message != "not lent" {
		t.Errorf("WithdrawLent kept %v", got)
	}
}
