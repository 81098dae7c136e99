package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDatabaseCode runs the command, with no flags, on a module whose
// locking is partly in the database: a PL/pgSQL function in a goose
// migration and a trigger in a golang-migrate one. Both cycles are found;
// the fixed twins (-tags fixed) and a run without the schema are silent;
// an update that does not fire the trigger (UPDATE OF another column) adds
// nothing.
func TestDatabaseCode(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "dbcode"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runTool(t, dir, bin, "-v", "-cache=false", "./...")
	if code != exitFindings {
		t.Fatalf("exit code %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"store.ClaimJob holds rows of jobs (FOR NO KEY UPDATE) while waiting for rows of job_totals (FOR NO KEY UPDATE)",
		"takes:      store/jobs.go:12:26: UPDATE in claim_job() in a transaction",
		"store.AddPayment holds rows of accounts (FOR NO KEY UPDATE) while waiting for rows of ledgers",
		"takes:      store/payments.go:11:29: UPDATE in trigger payments_bump on payments in a transaction",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "lock-order inversion"); n != 2 || strings.Contains(out, "AnnotatePayment") {
		t.Errorf("%d findings, want 2 and none through AnnotatePayment:\n%s", n, out)
	}
	for _, want := range []string{
		"schema: db/migrations/00001_tables.sql (goose): 5 tables, 5 keys",
		"schema: db/migrations/00002_claim_job.sql (goose): 1 functions",
		"schema: sql/migrations/000001_payments_trigger.up.sql (golang-migrate): 1 functions, 1 triggers",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("-v lacks %q:\n%s", want, errOut)
		}
	}
	for _, args := range [][]string{{"-tags", "fixed"}, {"-schema=none"}} {
		out, errOut, code := runTool(t, dir, bin, append(args, "./...")...)
		if code != exitClean {
			t.Errorf("%v: exit code %d\n%s\n%s", args, code, out, errOut)
		}
	}
	// The reproducers create the function and the trigger they rely on.
	out, _, _ = runTool(t, dir, bin, "-repro", "./...")
	for _, want := range []string{
		"CREATE OR REPLACE FUNCTION claim_job(p_id bigint)",
		"CREATE OR REPLACE FUNCTION bump_balance()",
		"CREATE OR REPLACE TRIGGER payments_bump AFTER INSERT OR UPDATE OF amount ON payments",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-repro lacks %q:\n%s", want, out)
		}
	}
}
