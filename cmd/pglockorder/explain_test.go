package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainExample explains a deadlock that a PostgreSQL 15 server
// logged while replaying the example's reproducer, in every output
// format, and checks that the fixed example leaves it unexplained.
func TestExplainExample(t *testing.T) {
	bin := buildTool(t)
	logFile, err := filepath.Abs("testdata/explain/example.log")
	if err != nil {
		t.Fatal(err)
	}
	dir := "../../testdata/example"
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"explain.txt", nil},
		{"explain.json", []string{"-format=json"}},
		{"explain.sarif", []string{"-format=sarif"}},
	} {
		out, stderr, code := runTool(t, dir, bin, append(tc.args, "-explain", logFile, "./...")...)
		if code != exitClean {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, exitClean, stderr)
		}
		out = strings.ReplaceAll(out, logFile, "example.log")
		golden(t, tc.golden, out)
		if tc.golden != "explain.txt" && !json.Valid([]byte(out)) {
			t.Errorf("%s: not JSON", tc.golden)
		}
	}
	// The fixed endpoint takes subscriptions first: the logged deadlock
	// can no longer happen, and no finding explains it.
	out, stderr, code := runTool(t, dir, bin, "-tags", "fixed", "-explain", logFile, "./...")
	if code != exitFindings || !strings.Contains(out, "not explained") || strings.Contains(out, "explained by") {
		t.Errorf("fixed example: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "runs at:   api/tier") {
		t.Errorf("fixed example: the statements still run in api/tier.go, not named:\n%s", out)
	}
}

// TestExplainInput checks the messages and exit codes for input with
// nothing to explain, and usage errors.
func TestExplainInput(t *testing.T) {
	bin := buildTool(t)
	tmp := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dir := "../../testdata/example"
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no deadlock", []string{"-explain", write("quiet.log", "2026-12-02 02:31:27.247 UTC [15546] LOG:  database system is ready to accept connections\n")}, exitClean, "no deadlock, lock wait or blocked process in"},
		{"binary", []string{"-explain", write("garbage.bin", "\x7fELF\x00\x01\x02\n\x00\x00\xff\xfe\n")}, exitError, "is not a text log"},
		{"truncated", []string{"-explain", write("cut.log", "2026-12-02 02:32:55.333 UTC [18149] ERROR:  deadlock detected\n2026-12-02 02:32:55.333 UTC [18149] DETAIL:  Process 18149 waits for ShareLock on transaction 739; blocked by process 18150.\n")}, exitFindings, "1 report(s)"},
		{"missing", []string{"-explain", filepath.Join(tmp, "nope.log")}, exitError, "no such file"},
		{"github", []string{"-format=github", "-explain", write("x.log", "")}, exitUsage, "-explain prints text, json or sarif"},
		{"repro", []string{"-repro", "-explain", write("y.log", "")}, exitUsage, "cannot be combined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runTool(t, dir, bin, append(tc.args, "./...")...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant %q", code, tc.code, stderr, tc.msg)
			}
		})
	}
}

// TestExplainCallerHandle explains a deadlock between statements that
// helpers run on a handle their callers pass (a DBTX): -explain says so,
// rather than calling them autocommit, and finds the paths of the callers
// that pass a transaction.
func TestExplainCallerHandle(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	prefix := "2026-12-02 02:32:55.333 UTC [200] postgres@db "
	log := prefix + "ERROR:  deadlock detected\n" +
		prefix + "DETAIL:  Process 200 waits for ShareLock on transaction 739; blocked by process 201.\n" +
		"\tProcess 201 waits for ShareLock on transaction 738; blocked by process 200.\n" +
		"\tProcess 200: SELECT 1 FROM jobs WHERE id = 7 FOR UPDATE\n" +
		"\tProcess 201: SELECT 1 FROM accounts WHERE id = 7 FOR UPDATE\n" +
		prefix + "HINT:  See server log for query details.\n" +
		prefix + "CONTEXT:  while locking tuple (0,1) in relation \"jobs\"\n"
	logFile := filepath.Join(t.TempDir(), "deadlock.log")
	if err := os.WriteFile(logFile, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, _ := runTool(t, dir, bin, "-explain", logFile, "./labels")
	for _, want := range []string{
		"in labels.lockJob (same statement, on the caller's handle)",
		"in labels.lockAccount (same statement, on the caller's handle)",
		"path:      labels.Claim holds",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-explain does not say %q:\n%s\n%s", want, out, stderr)
		}
	}
	if strings.Contains(out, "autocommit") {
		t.Errorf("-explain calls a statement on the caller's handle autocommit:\n%s", out)
	}
}
