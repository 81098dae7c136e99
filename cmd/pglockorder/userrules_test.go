package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInterfaceRulesCommand runs the command with -sinks and -txrunners
// that name interface methods, as a user would: the store and runner
// behind the ports of testdata/libs/userrules are followed through the
// interfaces and on an implementation, their inversion is reported in a
// transaction, the fixed twin is silent, and without the flags nothing is
// found (the implementation runs its SQL where the analysis cannot see).
func TestInterfaceRulesCommand(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "libs"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	rules := []string{"-cache=false", "-sinks=libs/userrules/port.Store.Exec:1", "-txrunners=libs/userrules/port.TxRunner.InTx:1"}
	out, stderr, code := runTool(t, dir, bin, append(rules, "./userrules/svc")...)
	if code != exitFindings || strings.Count(out, "lock-order inversion") != 1 {
		t.Fatalf("exit %d, want %d and one inversion\n%s%s", code, exitFindings, out, stderr)
	}
	for _, want := range []string{
		"path 1: svc.Refund holds rows of accounts",
		"SELECT ... FOR UPDATE in a transaction (in svc.Refund.func1)",
		"SELECT ... FOR UPDATE in a transaction (in svc.Service.Claim.func1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the finding does not say %q:\n%s", want, out)
		}
	}
	if out, stderr, code := runTool(t, dir, bin, append(rules, "./userrules/svc/fixed")...); code != exitClean || out != "" {
		t.Errorf("fixed twin: exit %d, want %d\n%s%s", code, exitClean, out, stderr)
	}
	if out, stderr, code := runTool(t, dir, bin, "-cache=false", "./userrules/svc"); code != exitClean || out != "" {
		t.Errorf("without the rules: exit %d, want %d\n%s%s", code, exitClean, out, stderr)
	}
}
