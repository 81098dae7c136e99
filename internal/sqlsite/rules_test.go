package sqlsite_test

import (
	"sync"
	"testing"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// TestRulesAreValues classifies one call under two sets of rules, from many
// goroutines at once: the rules are values, each classification sees only
// the rules it is given (under -race, this also checks that sqlsite keeps
// no rules of its own).
func TestRulesAreValues(t *testing.T) {
	pkg := build(t, `package p

type Conn struct{}

func (c *Conn) Run(q string) {}

func F(c *Conn) { c.Run("UPDATE t SET n = n + 1 WHERE id = 1") }
`)
	call := onlyCall(t, pkg, "F", "Run")
	recv := call.Args[0].Type()
	sink, err := sqlsite.NewRules("example.com/p.Conn.Run:0", "")
	if err != nil {
		t.Fatal(err)
	}
	runner, err := sqlsite.NewRules("", "example.com/p.Conn.Run:0") // not a func argument: no runner
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		rules *sqlsite.Rules
		kind  sqlsite.OpKind
		recv  sqlsite.HandleKind
		pkg   bool
	}{
		{"sink", sink, sqlsite.Query, sqlsite.Maybe, true},
		{"runner", runner, sqlsite.NoOp, sqlsite.NotHandle, true},
		{"none", nil, sqlsite.NoOp, sqlsite.NotHandle, false},
	}
	var wg sync.WaitGroup
	for range 8 {
		for _, tt := range tests {
			wg.Go(func() {
				op := tt.rules.Classify(call)
				if op.Kind != tt.kind || tt.kind == sqlsite.Query && op.Query != 0 {
					t.Errorf("%s: Classify = {Kind: %v, Query: %d}, want Kind %v", tt.name, op.Kind, op.Query, tt.kind)
				}
				if k := tt.rules.KindOf(recv); k != tt.recv {
					t.Errorf("%s: KindOf(*Conn) = %v, want %v", tt.name, k, tt.recv)
				}
				if got := tt.rules.IsRulePackage("example.com/p"); got != tt.pkg {
					t.Errorf("%s: IsRulePackage = %t, want %t", tt.name, got, tt.pkg)
				}
			})
		}
	}
	wg.Wait()
}
