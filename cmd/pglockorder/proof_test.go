package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaFlag runs the command on the foreign-key example: with
// -schema=none it sees no deadlock; with -schema, and without it (the
// migrations are found in migrations/), it reports the two that exist only
// through a foreign-key check and a cascade, and not the non-key update
// that a foreign-key check does not conflict with.
func TestSchemaFlag(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "fkschema"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runTool(t, dir, bin, "-schema=none", "./...")
	if code != exitClean {
		t.Fatalf("-schema=none: exit code %d\n%s\n%s", code, out, errOut)
	}
	for _, args := range [][]string{{"-schema=migrations"}, {"-v", "-cache=false"}} {
		out, errOut, code = runTool(t, dir, bin, append(args, "./...")...)
		if code != exitFindings {
			t.Fatalf("%v: exit code %d\n%s\n%s", args, code, out, errOut)
		}
		for _, want := range []string{
			"blog.AddComment holds rows of posts (FOR KEY SHARE) while waiting for rows of audit",
			"takes:      blog.go:19:29: INSERT (foreign key check on posts) in a transaction",
			"blog.RenumberPost holds rows of audit (FOR NO KEY UPDATE) while waiting for rows of posts (FOR UPDATE)",
			"blog.DeleteAuthor holds rows of authors (FOR UPDATE) while waiting for rows of books (FOR UPDATE)",
			"then waits: blog.go:89:29: DELETE (ON DELETE CASCADE of books) in a transaction",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
		if n := strings.Count(out, "lock-order inversion"); n != 2 || strings.Contains(out, "counters") {
			t.Errorf("%v: %d reports, want 2 and none on counters:\n%s", args, n, out)
		}
	}
	// -v says which migrations it read and what they added.
	for _, want := range []string{
		"schema: migrations/001_blog.sql (migrations): 5 tables, 5 keys, 1 foreign keys",
		"schema: migrations/002_authors.sql (migrations): 2 tables, 2 keys, 2 foreign keys",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("-v lacks %q:\n%s", want, errOut)
		}
	}
	_, errOut, code = runTool(t, dir, bin, "-schema=no/such/dir", "./...")
	if code == exitClean || code == exitFindings || !strings.Contains(errOut, "no/such/dir") {
		t.Errorf("a missing schema: exit code %d, stderr %q", code, errOut)
	}
}

// TestReproFlag checks that -repro prints, after the findings, one script
// per cycle with the sessions, the statements and the expected outcome.
func TestReproFlag(t *testing.T) {
	bin := buildTool(t)
	dir := example(t)
	out, errOut, code := runTool(t, dir, bin, "-repro", "./...")
	if code != exitFindings {
		t.Fatalf("exit code %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"# ---- reproducer 1 of 1: save from here as repro-1.sh\n#!/bin/sh\n",
		"# session s1 replays billing.InvoiceAccount\n",
		"# Expected: one session fails with ERROR: deadlock detected (SQLSTATE 40P01)",
		`: "${subscriptions_account_id:?fill in parameter 1 of the statements on subscriptions`,
		"SELECT plan FROM subscriptions WHERE account_id = :'subscriptions_account_id' FOR UPDATE;\nSELECT pg_sleep(:step * 1);\n",
		"UPDATE subscriptions SET plan = :'subscriptions_plan_new' WHERE account_id = :'subscriptions_account_id';\nROLLBACK;\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "lock-order inversion"), strings.Index(out, "#!/bin/sh"); i < 0 || j < i {
		t.Errorf("the reproducers should follow the findings:\n%s", out)
	}
	if _, _, code := runTool(t, dir, bin, "-repro", "-json", "./..."); code != exitUsage {
		t.Errorf("-repro -json: exit code %d, want %d", code, exitUsage)
	}
}
