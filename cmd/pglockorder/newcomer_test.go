package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// writeFiles writes files (name -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoModNeedsTidy runs the command, as a new user would, in a module
// whose go.mod lacks the requirements go mod tidy would add: the go
// command's own message, not "no packages match".
func TestGoModNeedsTidy(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, example(t))
	editFile(t, filepath.Join(dir, "go.mod"), func(s string) string {
		return regexp.MustCompile(`(?m)^.*// indirect\n`).ReplaceAllString(s, "")
	})
	_, stderr, code := runTool(t, dir, bin, "./...")
	if code != exitError || !strings.Contains(stderr, "go mod tidy") || strings.Contains(stderr, "no packages match") {
		t.Fatalf("exit %d, want %d and go's message about go mod tidy\n%s", code, exitError, stderr)
	}
}

// TestDirFlag checks -C with a directory that does not exist and with a
// file: a usage error that says so, not a failure to start go.
func TestDirFlag(t *testing.T) {
	bin := buildTool(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "go.mod")
	writeFiles(t, dir, map[string]string{"go.mod": "module m\n"})
	for _, tc := range []struct{ arg, want string }{
		{filepath.Join(dir, "missing"), "the directory does not exist"},
		{file, "not a directory"},
	} {
		_, stderr, code := runTool(t, dir, bin, "-C", tc.arg, "./...")
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "fork/exec") {
			t.Errorf("-C %s: exit %d, want %d and %q\n%s", tc.arg, code, exitUsage, tc.want, stderr)
		}
	}
}

// TestConfigErrorOnce puts a misspelt key in .pglockorder.yaml: every
// driver names the key in the file's terms, once per run, and the command
// treats it as the user's input (exit 2).
func TestConfigErrorOnce(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	writeFiles(t, dir, map[string]string{
		".pglockorder.yaml": "ordr: [subscriptions, usage_records]\n",
		// Two more packages, so that go vet runs four.
		"jobs/jobs.go":   "package jobs\n\nimport \"database/sql\"\n\n// DB is a handle.\nvar DB *sql.DB\n",
		"other/other.go": "package other\n\nimport \"database/sql\"\n\n// DB is a handle.\nvar DB *sql.DB\n",
	})
	// go vet caches by the sources alone: sources of this run's own keep
	// a result of an earlier test run from being replayed.
	editFile(t, filepath.Join(dir, "store", "store.go"), func(s string) string {
		return s + fmt.Sprintf("\n// run %d\n", time.Now().UnixNano())
	})
	const want = `.pglockorder.yaml:1: unknown key "ordr" (did you mean "order"?)`
	_, stderr, code := runTool(t, dir, "go", "vet", "-vettool="+bin, "./...")
	if code == 0 || strings.Count(stderr, want) != 1 || strings.Contains(stderr, "configDoc") {
		t.Errorf("go vet: exit %d, want the error once\n%s", code, stderr)
	}
	_, stderr, code = runTool(t, dir, bin, "./...")
	if code != exitUsage || strings.Count(stderr, want) != 1 {
		t.Errorf("command: exit %d, want %d and the error once\n%s", code, exitUsage, stderr)
	}
}

// TestConfigUnlockedName declares an order with a table name the code
// never locks (a typo): the check would pass without checking, so the
// command warns and names the closest table it does lock.
func TestConfigUnlockedName(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	writeFiles(t, dir, map[string]string{".pglockorder.yaml": "order: [subscription, usage_records]\n"})
	_, stderr, _ := runTool(t, dir, bin, "./...")
	want := `pglockorder: .pglockorder.yaml: "subscription" in the declared order is never locked by the analysed code, so it orders nothing; the closest name the code locks is "subscriptions"`
	if !strings.Contains(stderr, want) || strings.Contains(stderr, `"usage_records" in the declared order`) {
		t.Errorf("stderr lacks the warning about subscription alone:\n%s", stderr)
	}
}

// TestReproWithGraph checks that -repro never mixes scripts into a graph
// on standard output: a usage error, and -repro=DIR writes them to files.
func TestReproWithGraph(t *testing.T) {
	bin := buildTool(t)
	dir := example(t)
	for _, args := range [][]string{{"-repro", "-graph=dot"}, {"-repro", "-suggest-order"}, {"-repro", "-format=sarif"}} {
		_, stderr, code := runTool(t, dir, bin, append(args, "./...")...)
		if code != exitUsage || !strings.Contains(stderr, "-repro=DIR") {
			t.Errorf("%v: exit %d, want %d and a hint at -repro=DIR\n%s", args, code, exitUsage, stderr)
		}
	}
	out := filepath.Join(t.TempDir(), "scripts")
	stdout, stderr, code := runTool(t, dir, bin, "-repro="+out, "-graph=dot", "./...")
	if code != exitFindings || !strings.HasPrefix(stdout, "digraph") || !strings.HasSuffix(strings.TrimSpace(stdout), "}") {
		t.Fatalf("-repro=DIR -graph=dot: exit %d, stdout not only the graph\n%s\n%s", code, stdout, stderr)
	}
	script, err := os.ReadFile(filepath.Join(out, "repro-1.sh"))
	if err != nil || !strings.HasPrefix(string(script), "#!/bin/sh\n# pglockorder reproducer 1:") {
		t.Fatalf("repro-1.sh: %v\n%s", err, script)
	}
	if !strings.Contains(stderr, "1 reproducer script(s) written to "+out) {
		t.Errorf("stderr does not say where the script went:\n%s", stderr)
	}
}

// TestVersion checks -version against what the build stamped, and that
// SARIF and -v carry the same text.
func TestVersion(t *testing.T) {
	bin := buildTool(t)
	stdout, _, code := runTool(t, ".", bin, "-version")
	v, ok := strings.CutPrefix(strings.TrimSpace(stdout), "pglockorder ")
	if code != exitClean || !ok || v == "" {
		t.Fatalf("-version: exit %d, %q", code, stdout)
	}
	dir := example(t)
	sarif, _, _ := runTool(t, dir, bin, "-format=sarif", "./...")
	var log struct {
		Runs []struct {
			Tool struct{ Driver struct{ Version string } }
		}
	}
	if err := json.Unmarshal([]byte(sarif), &log); err != nil || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Version != v {
		t.Errorf("SARIF tool.driver.version = %+v (%v), want %q", log, err, v)
	}
	_, stderr, _ := runTool(t, dir, bin, "-v", "./...")
	if !strings.Contains(stderr, "pglockorder "+v+": ") {
		t.Errorf("-v does not name the version %q:\n%s", v, stderr)
	}
}

func TestVersionOf(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name     string
		version  string
		settings map[string]string
		want     string
	}{
		{"release", "v1.2.3", nil, "v1.2.3"},
		{"checkout", "(devel)", map[string]string{"vcs.revision": rev, "vcs.modified": "false"}, "(devel) 0123456789ab"},
		{"dirty checkout", "(devel)", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}, "(devel) 0123456789ab+dirty"},
		{"pseudo-version", "v0.0.0-20261202023000-0123456789ab+dirty", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}, "v0.0.0-20261202023000-0123456789ab+dirty"},
		{"nothing stamped", "", nil, "(devel)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: tc.version}}
			for k, v := range tc.settings {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
			}
			if got := versionOf(bi); got != tc.want {
				t.Errorf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSkippedSQLCount runs the command on a module with SQL that does not
// parse and query text built at run time: one line at the end counts them,
// and -debug lists where they are.
func TestSkippedSQLCount(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	writeFiles(t, dir, map[string]string{"jobs/jobs.go": `// Package jobs runs SQL pglockorder cannot read.
package jobs

import (
	"context"
	"database/sql"
)

// Run runs a statement that does not parse and one built at run time.
func Run(ctx context.Context, db *sql.DB, tables map[string]string) error {
	if _, err := db.ExecContext(ctx, "UPDATE FROM WHERE"); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "DELETE FROM "+tables["jobs"])
	return err
}
`})
	const count = "pglockorder: 1 SQL string could not be parsed and 1 query text is built at run time; their locks are not in the analysis"
	_, stderr, code := runTool(t, dir, bin, "./...")
	if code != exitFindings || !strings.Contains(stderr, count+" (-debug lists them)\n") {
		t.Errorf("exit %d, stderr lacks the count\n%s", code, stderr)
	}
	_, stderr, _ = runTool(t, dir, bin, "-debug", "./...")
	for _, want := range []string{
		"pglockorder: jobs/jobs.go:11:29: skipping SQL that does not parse: ",
		"pglockorder: jobs/jobs.go:14:26: some query text here is built at run time and was not analysed: a map element",
		count + "\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-debug: stderr lacks %q\n%s", want, stderr)
		}
	}
}

// crossModule is the gate module with the api package replaced by a jobs
// package that locks the store's tables in the opposite order and imports
// nothing of the module: only the whole-program command sees the cycle.
func crossModule(t *testing.T) string {
	t.Helper()
	dir := copyModule(t, gateModule(t))
	if err := os.RemoveAll(filepath.Join(dir, "api")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"jobs/jobs.go": `// Package jobs backfills usage, against the store's order.
package jobs

import (
	"context"
	"database/sql"
)

// Backfill locks the usage records first, then the subscription.
func Backfill(ctx context.Context, db *sql.DB, account int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM usage_records WHERE account_id = $1", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE", account); err != nil {
		return err
	}
	return tx.Commit()
}
`})
	return dir
}

// suppressAtFinding puts an ignore directive on the line of the command's
// only finding in dir.
func suppressAtFinding(t *testing.T, bin, dir string) {
	t.Helper()
	got := cliIssues(t, bin, dir, "./...")
	if len(got) != 1 {
		t.Fatalf("want one finding of the command, got %v", got)
	}
	file, line, _ := splitPosn(got[0].Posn)
	editFile(t, filepath.Join(dir, file), func(s string) string {
		lines := strings.Split(s, "\n")
		lines[line-1] += " //pglockorder:ignore backfills run alone"
		return strings.Join(lines, "\n")
	})
}

// TestIgnoreCrossPackage suppresses a cycle that only the whole-program
// command sees: go vet cannot see the finding, so it must not call the
// directive stale; one directive satisfies both drivers. A directive on a
// line without locks is stale for both.
func TestIgnoreCrossPackage(t *testing.T) {
	bin := buildTool(t)
	dir := crossModule(t)
	suppressAtFinding(t, bin, dir)
	if got := cliIssues(t, bin, dir, "./..."); len(got) != 0 {
		t.Errorf("command with the directive: %v", got)
	}
	if got := vetIssues(t, bin, dir, "./..."); len(got) != 0 {
		t.Errorf("go vet with the directive: %v", got)
	}
	editFile(t, filepath.Join(dir, "jobs", "jobs.go"), func(s string) string {
		return strings.Replace(s, "\treturn tx.Commit()", "\treturn tx.Commit() //pglockorder:ignore stale", 1)
	})
	const stale = "jobs/jobs.go:22:21: pglockorder:ignore (stale) suppresses nothing"
	cli, vet := cliIssues(t, bin, dir, "./..."), vetIssues(t, bin, dir, "./...")
	if len(cli) != 1 || cli[0].String() != stale+": no finding is reported on this line or the next; remove it" {
		t.Errorf("command with a stale directive: %v", cli)
	}
	if len(vet) != 1 || !strings.HasPrefix(vet[0].String(), stale) {
		t.Errorf("go vet with a stale directive: %v", vet)
	}
}

// TestPartialAnalysis runs the command on a module where one package does
// not type-check and another imports it, and an inversion is elsewhere:
// the inversion is reported (exit 3), the two packages are named once each
// on stderr and in SARIF; without the inversion the exit status is 1, or
// 0 with -partial.
func TestPartialAnalysis(t *testing.T) {
	bin := buildTool(t)
	dir := partialModule(t)
	const (
		summary = "pglockorder: 2 package(s) left out of the analysis (they do not load or type-check); the 2 other(s) were analysed:\n" +
			"\texample.com/gate/broken: broken/broken.go:5:13: cannot use \"s\" (untyped string constant) as int value in variable declaration\n" +
			"\texample.com/gate/user: imports example.com/gate/broken, which was left out\n"
	)
	stdout, stderr, code := runTool(t, dir, bin, "./...")
	if code != exitFindings || !strings.Contains(stdout, "api/api.go:21:29: lock-order inversion") || !strings.Contains(stderr, summary) {
		t.Fatalf("exit %d, want %d, the inversion and the summary\n%s\n%s", code, exitFindings, stdout, stderr)
	}
	// Without the inversion: 1, or 0 when a partial analysis is accepted.
	if err := os.RemoveAll(filepath.Join(dir, "api")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runTool(t, dir, bin, "./..."); code != exitError || !strings.Contains(stderr, "-partial accepts a partial analysis") {
		t.Errorf("no findings, packages left out: exit %d, want %d\n%s", code, exitError, stderr)
	}
	if _, stderr, code := runTool(t, dir, bin, "-partial", "./..."); code != exitClean || !strings.Contains(stderr, "example.com/gate/broken: ") {
		t.Errorf("-partial: exit %d, want %d and the summary\n%s", code, exitClean, stderr)
	}
	// -partial accepts packages that do not build, not a pattern that
	// names none, nor a run that analyses nothing.
	for _, args := range [][]string{{"-partial", "./no/such/dir/...", "./store"}, {"-partial", "./broken", "./user"}} {
		if _, stderr, code := runTool(t, dir, bin, args...); code != exitError {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitError, stderr)
		}
	}
}

// partialModule is the gate module with a package that does not
// type-check and one that imports it.
func partialModule(t *testing.T) string {
	t.Helper()
	dir := copyModule(t, gateModule(t))
	writeFiles(t, dir, map[string]string{
		"broken/broken.go": "// Package broken does not type-check.\npackage broken\n\n// X is not an int.\nvar X int = \"s\"\n",
		"user/user.go":     "// Package user imports the broken package.\npackage user\n\nimport \"example.com/gate/broken\"\n\n// Y is X.\nvar Y = broken.X\n",
	})
	return dir
}

// TestSARIFLeftOut checks the SARIF of a partial analysis against the
// schema: the run's invocation is not successful and has one error
// notification per package left out; the inversion is still a result.
func TestSARIFLeftOut(t *testing.T) {
	schema := sarifSchema(t)
	bin := buildTool(t)
	log := sarifOf(t, schema, bin, partialModule(t), "./...")
	if len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 || len(log.Runs[0].Results) != 1 {
		t.Fatalf("want one run with one invocation and one result: %+v", log)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 2 {
		t.Fatalf("invocation %+v, want unsuccessful with two notifications", inv)
	}
	for i, want := range []string{
		"package left out of the analysis: example.com/gate/broken: broken/broken.go:5:13: cannot use",
		"package left out of the analysis: example.com/gate/user: imports example.com/gate/broken, which was left out",
	} {
		n := inv.ToolExecutionNotifications[i]
		if n.Level != "error" || !strings.HasPrefix(n.Message.Text, want) || n.Descriptor == nil || n.Descriptor.ID != packageLeftOut {
			t.Errorf("notification %d = %+v, want an error starting %q", i, n, want)
		}
	}
	clean := sarifOf(t, schema, bin, gateModule(t), "./...")
	if inv := clean.Runs[0].Invocations; len(inv) != 1 || !inv[0].ExecutionSuccessful || len(inv[0].ToolExecutionNotifications) != 0 {
		t.Errorf("a complete run's invocations: %+v", inv)
	}
}
