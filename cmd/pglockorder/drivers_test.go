package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/testenv"
)

// golangciEnv enables the tests that build golangci-lint with the plugin
// compiled in (.ci/run sets it): the build takes minutes on a cold cache.
const golangciEnv = "PGLOCKORDER_GOLANGCI"

var (
	gclOnce sync.Once
	gclPath string
	gclErr  error
)

// buildGolangci builds testdata/golangci, golangci-lint v2.15.0 with the
// pglockorder plugin, once per test binary run, next to the command (which
// it builds too, and returns).
func buildGolangci(t *testing.T) (gcl, tool string) {
	t.Helper()
	if os.Getenv(golangciEnv) != "1" {
		testenv.Skip(t, "golangci-lint built with the plugin ("+golangciEnv+"=1)", "it is built from the module proxy (minutes on a cold cache); run with "+golangciEnv+"=1, as .ci/run does")
	}
	tool = buildTool(t) // creates buildDir, and runs the test in parallel
	gclOnce.Do(func() {
		gclPath = filepath.Join(buildDir, "golangci-lint")
		gclErr = buildCustomGolangci(gclPath)
	})
	if gclErr != nil {
		t.Fatal(gclErr)
	}
	return gclPath, tool
}

// buildCustomGolangci builds testdata/golangci into bin from a copy whose
// replace directive names this checkout by its absolute path: -mod=mod then
// adds whatever requirements this module has gained since
// testdata/golangci/go.mod was last tidied, without touching the checkout.
func buildCustomGolangci(bin string) error {
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "golangci"))
	if err != nil {
		return err
	}
	root := filepath.Dir(filepath.Dir(src))
	dir := filepath.Join(filepath.Dir(bin), "customgcl")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"go.mod", "go.sum", "main.go"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if name == "go.mod" {
			data = []byte(strings.Replace(string(data), "=> ../..", "=> "+root, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building golangci-lint with the plugin: %w\n%s", err, out)
	}
	return nil
}

// gateModule returns testdata/gate, a module with one inversion that every
// driver sees: api imports store, whose two functions keep the order
// api.ChangeTier breaks.
func gateModule(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "gate"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// issue is a finding as the three drivers print it, positions relative to
// the module root.
type issue struct {
	Posn    string
	Message string
}

func (i issue) String() string { return i.Posn + ": " + i.Message }

// golangciIssues runs the custom golangci-lint in dir and returns its
// pglockorder findings.
func golangciIssues(t *testing.T, bin, dir string, args ...string) ([]issue, string, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--output.json.path=stdout", "--show-stats=false", "--allow-parallel-runners"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOLANGCI_LINT_CACHE="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("golangci-lint: %v", err)
	}
	var report struct {
		Issues []struct {
			FromLinter string
			Text       string
			Pos        struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if code == 0 || code == 1 {
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("golangci-lint output is not JSON: %v\n%s\nstderr:\n%s", err, out, stderr.String())
		}
	}
	var got []issue
	for _, i := range report.Issues {
		if i.FromLinter != "pglockorder" {
			t.Errorf("issue from another linter: %+v", i)
			continue
		}
		got = append(got, issue{fmt.Sprintf("%s:%d:%d", i.Pos.Filename, i.Pos.Line, i.Pos.Column), i.Text})
	}
	return got, stderr.String(), code
}

// TestGolangciPlugin builds golangci-lint with the plugin and runs it on
// the gate module: the inversion comes out with both paths in its text.
func TestGolangciPlugin(t *testing.T) {
	bin, _ := buildGolangci(t)
	dir := gateModule(t)
	got, stderr, code := golangciIssues(t, bin, dir, "./...")
	if code != 1 || len(got) != 1 {
		t.Fatalf("exit %d, issues %v; want exit 1 and one issue\nstderr:\n%s", code, got, stderr)
	}
	for _, want := range []string{
		"lock-order inversion: rows of subscriptions and rows of usage_records are locked in opposite orders",
		"path 1: store.Store.Invoice holds rows of subscriptions (FOR UPDATE)",
		"then waits: store/store.go:25:29: UPDATE in a transaction",
		"path 2: api.ChangeTier holds rows of usage_records (FOR NO KEY UPDATE)",
		"then waits: api/api.go:21:29: UPDATE in a transaction",
	} {
		if !strings.Contains(got[0].Message, want) {
			t.Errorf("issue lacks %q:\n%s", want, got[0])
		}
	}
	if got[0].Posn != "api/api.go:21:29" {
		t.Errorf("issue at %s, want api/api.go:21:29", got[0].Posn)
	}

	// golangci-lint's own //nolint:pglockorder, and the analyzer's
	// //pglockorder:ignore, both silence it.
	for _, directive := range []string{" //nolint:pglockorder // tier changes run alone", " //pglockorder:ignore tier changes run alone"} {
		dir := copyModule(t, gateModule(t))
		editFile(t, filepath.Join(dir, "api", "api.go"), func(s string) string {
			const line = "account, plan); err != nil {"
			return strings.Replace(s, line, line+directive, 1)
		})
		if got, stderr, code := golangciIssues(t, bin, dir, "./..."); code != 0 || len(got) != 0 {
			t.Errorf("with%s: exit %d, issues %v\n%s", directive, code, got, stderr)
		}
	}
}

// TestGolangciPluginSettings checks that a misspelt setting stops the run
// with a message naming it and the known settings.
func TestGolangciPluginSettings(t *testing.T) {
	bin, _ := buildGolangci(t)
	cfg := filepath.Join(t.TempDir(), "golangci.yml")
	conf := strings.Replace(readFile(t, filepath.Join(gateModule(t), ".golangci.yml")), "maxcycle: 4", "maxcycles: 4", 1)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := golangciIssues(t, bin, gateModule(t), "-c", cfg, "./...")
	if code == 0 || code == 1 {
		t.Fatalf("exit %d with an unknown setting; want a configuration error\n%s", code, stderr)
	}
	for _, want := range []string{`unknown setting "maxcycles"`, "maxcycle"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vetIssues runs go vet -json with the command as its tool in dir.
func vetIssues(t *testing.T, bin, dir string, args ...string) []issue {
	t.Helper()
	// go vet -json prints one JSON object per package, on standard
	// output or standard error depending on the Go version.
	stdout, stderr, code := runTool(t, dir, "go", append([]string{"vet", "-json", "-vettool=" + bin}, args...)...)
	if code != 0 {
		t.Fatalf("go vet -json: exit %d\n%s", code, stderr)
	}
	var got []issue
	dec := json.NewDecoder(strings.NewReader(stdout + stderr))
	for {
		var tree map[string]map[string][]struct{ Posn, Message string }
		err := dec.Decode(&tree)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("go vet -json output: %v\n%s", err, stderr)
		}
		for _, byAnalyzer := range tree {
			for _, f := range byAnalyzer["pglockorder"] {
				posn := f.Posn
				if rel, err := filepath.Rel(dir, posn); err == nil {
					posn = rel
				}
				got = append(got, issue{posn, f.Message})
			}
		}
	}
	return got
}

// cliIssues runs the command with -json in dir.
func cliIssues(t *testing.T, bin, dir string, args ...string) []issue {
	t.Helper()
	out, stderr, code := runTool(t, dir, bin, append([]string{"-json"}, args...)...)
	if code != exitFindings && code != exitClean {
		t.Fatalf("pglockorder -json: exit %d\n%s", code, stderr)
	}
	var tree map[string]map[string][]struct{ Posn, Message string }
	if err := json.Unmarshal([]byte(out), &tree); err != nil {
		t.Fatalf("pglockorder -json output: %v\n%s", err, out)
	}
	var got []issue
	for _, byAnalyzer := range tree {
		for _, f := range byAnalyzer["pglockorder"] {
			got = append(got, issue{f.Posn, f.Message})
		}
	}
	return got
}

func sortIssues(is []issue) []issue {
	slices.SortFunc(is, func(a, b issue) int { return strings.Compare(a.String(), b.String()) })
	return is
}

// TestDriversAgree runs the gate module through the command (whole
// program), go vet -vettool and golangci-lint with the plugin: where the
// per-package drivers can see the cycle (api imports store), all three
// report the same findings at the same positions with the same text. The
// second variant adds a declared order that the store breaks and a stale
// ignore directive: findings of every kind, from every driver.
func TestDriversAgree(t *testing.T) {
	gcl, bin := buildGolangci(t)
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, dir string)
		count int
	}{
		{"as is", func(*testing.T, string) {}, 1},
		{"declared order and a stale directive", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, ".pglockorder.yaml"), []byte("order: [usage_records, subscriptions]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			editFile(t, filepath.Join(dir, "api", "api.go"), func(s string) string {
				return strings.Replace(s, "\tdefer tx.Rollback()", "\tdefer tx.Rollback() //pglockorder:ignore stale", 1)
			})
		}, 4},
		// A cycle only the command sees (jobs and store never meet in an
		// import graph), suppressed where the command reports it: no
		// driver may call the directive stale.
		{"a directive on a cycle only the command sees", func(t *testing.T, dir string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(crossModule(t), dir); err != nil {
				t.Fatal(err)
			}
			suppressAtFinding(t, bin, dir)
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyModule(t, gateModule(t))
			tc.edit(t, dir)
			cli := sortIssues(cliIssues(t, bin, dir, "./..."))
			vet := sortIssues(vetIssues(t, bin, dir, "./..."))
			lint, stderr, _ := golangciIssues(t, gcl, dir, "./...")
			lint = sortIssues(lint)
			if len(cli) != tc.count || tc.count == 0 && len(vet)+len(lint) > 0 {
				t.Fatalf("the command found %d findings, want %d: %v", len(cli), tc.count, cli)
			}
			if !slices.Equal(cli, vet) {
				t.Errorf("go vet differs from the command:\ncommand: %v\ngo vet:  %v", cli, vet)
			}
			if !slices.Equal(cli, lint) {
				t.Errorf("golangci-lint differs from the command:\ncommand:       %v\ngolangci-lint: %v\n%s", cli, lint, stderr)
			}
		})
	}
}

// detailed is a finding with its category and related positions, as the
// command's -json and go vet -json print them (golangci-lint keeps neither).
type detailed struct {
	issue
	Category string
	Related  []issue
}

// decodeDetailed decodes the go vet -json shape (one object per package,
// by package then analyzer), which the command's -json shares, from text
// that may hold other lines between the objects; positions are made
// relative to dir.
func decodeDetailed(t *testing.T, text, dir string) []detailed {
	t.Helper()
	rel := func(posn string) string {
		if r, err := filepath.Rel(dir, posn); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return posn
	}
	var out []detailed
	for rest := text; ; {
		i := strings.Index(rest, "{")
		if i < 0 {
			break
		}
		dec := json.NewDecoder(strings.NewReader(rest[i:]))
		var tree map[string]map[string][]struct {
			Posn, Message, Category string
			Related                 []struct{ Posn, Message string }
		}
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("JSON output: %v\n%s", err, rest[i:])
		}
		rest = rest[i+int(dec.InputOffset()):]
		for _, byAnalyzer := range tree {
			for _, f := range byAnalyzer["pglockorder"] {
				d := detailed{issue: issue{rel(f.Posn), f.Message}, Category: f.Category}
				for _, r := range f.Related {
					d.Related = append(d.Related, issue{rel(r.Posn), r.Message})
				}
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b detailed) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// TestDriversAgreeOnEveryCategory runs corpus packages that report every
// category of finding through the three drivers: the same findings at the
// same positions with the same text and category, and the same related
// positions from the command and go vet. go vet's related information
// holds only positions in files of the package it analysed (a token.Pos
// exists only in its FileSet), so there it may be a part of the command's,
// in the same order, never something else. The declared order, which needs
// a configuration, is TestDriversAgree's.
func TestDriversAgreeOnEveryCategory(t *testing.T) {
	gcl, bin := buildGolangci(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	patterns := []string{"./advisory/...", "./crossconn/...", "./rowlocks/...", "./relock/...", "./suppress/..."}
	out, stderr, code := runTool(t, dir, bin, append([]string{"-json", "-cache=false"}, patterns...)...)
	if code != exitFindings {
		t.Fatalf("pglockorder -json: exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	cli := decodeDetailed(t, out, dir)
	vetOut, vetErr, code := runTool(t, dir, "go", append([]string{"vet", "-json", "-vettool=" + bin}, patterns...)...)
	if code != 0 {
		t.Fatalf("go vet -json: exit %d\n%s", code, vetErr)
	}
	vet := decodeDetailed(t, vetOut+vetErr, dir)

	seen := map[string]bool{}
	for _, f := range cli {
		seen[f.Category] = true
	}
	for _, c := range analyzer.Categories {
		if !seen[c] && c != category.DeclaredLockOrder {
			t.Errorf("no %s finding: the packages no longer cover the category", c)
		}
	}
	if len(cli) != len(vet) {
		t.Fatalf("the command reports %d findings, go vet %d", len(cli), len(vet))
	}
	for i, c := range cli {
		v := vet[i]
		if c.issue != v.issue || c.Category != v.Category {
			t.Errorf("finding %d differs:\ncommand: %s [%s]\ngo vet:  %s [%s]", i, c, c.Category, v, v.Category)
			continue
		}
		if c.Category == category.IgnoreDirective {
			continue // a directive has no paths
		}
		if len(c.Related) == 0 {
			t.Errorf("%s: no related positions", c.Posn)
		}
		if len(v.Related) == 0 || !subsequence(v.Related, c.Related) {
			t.Errorf("%s: go vet's related positions are not the command's:\ncommand: %v\ngo vet:  %v", c.Posn, c.Related, v.Related)
		}
	}

	// The gate module's configuration, with golangci-lint's own limits
	// off: it keeps one issue per line and three of the same text.
	conf := filepath.Join(t.TempDir(), "golangci.yml")
	limits := "issues:\n  max-issues-per-linter: 0\n  max-same-issues: 0\n  uniq-by-line: false\n"
	if err := os.WriteFile(conf, []byte(readFile(t, filepath.Join(gateModule(t), ".golangci.yml"))+limits), 0o644); err != nil {
		t.Fatal(err)
	}
	lint, lintErr, _ := golangciIssues(t, gcl, dir, append([]string{"-c", conf}, patterns...)...)
	for i, l := range lint {
		// golangci-lint shows paths relative to its configuration's
		// directory.
		if r, err := filepath.Rel(dir, filepath.Join(filepath.Dir(conf), l.Posn)); err == nil {
			lint[i].Posn = r
		}
	}
	lint = sortIssues(lint)
	want := make([]issue, len(cli))
	for i, c := range cli {
		want[i] = c.issue
	}
	for _, w := range sortIssues(want) {
		if !slices.Contains(lint, w) {
			t.Errorf("golangci-lint does not report the command's finding:\n%s", w)
		}
	}
	for _, l := range lint {
		if !slices.Contains(want, l) {
			t.Errorf("golangci-lint reports what the command does not:\n%s", l)
		}
	}
	if t.Failed() {
		t.Logf("golangci-lint's standard error:\n%s", lintErr)
	}
}

// subsequence reports whether every element of sub appears in seq, in
// order.
func subsequence(sub, seq []issue) bool {
	i := 0
	for _, x := range seq {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// TestLentRowsWholeProgram checks where a row finding on a transaction the
// caller lends is reported (lockseq.RowFinding.Lent): go vet, which sees
// store before its callers, reports store.DeleteItems' statement and
// store.MergeAccounts' two rows there; the command, which sees svc judge
// them at every call (the statement gated in Prune and reported in
// PruneUngated; both rows held already in Merge), withdraws those reports.
// Both report PruneUngated's, and store.MoveFunds', which one call
// (MoveBare) leaves standing.
func TestLentRowsWholeProgram(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	const (
		lent     = "lentrows/store/store.go:24:"
		borrower = "lentrows/svc/svc.go:39:"
		held     = "lentrows/store/store.go:60:" // MergeAccounts
		kept     = "lentrows/store/store.go:70:" // MoveFunds
	)
	at := func(fs []detailed, prefix string) int {
		n := 0
		for _, f := range fs {
			if strings.HasPrefix(f.Posn, prefix) && (f.Category == category.UnorderedRowLock || f.Category == category.CallerRowOrder) {
				n++
			}
		}
		return n
	}
	out, stderr, code := runTool(t, dir, bin, "-json", "-cache=false", "./lentrows/...")
	if code != exitFindings {
		t.Fatalf("pglockorder -json: exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	cli := decodeDetailed(t, out, dir)
	if at(cli, lent) != 0 || at(cli, borrower) != 1 || at(cli, held) != 0 || at(cli, kept) != 1 {
		t.Errorf("the command reports %d, %d, %d, %d findings at %s, %s, %s, %s; want 0, 1, 0, 1:\n%v",
			at(cli, lent), at(cli, borrower), at(cli, held), at(cli, kept), lent, borrower, held, kept, cli)
	}
	vetOut, vetErr, code := runTool(t, dir, "go", "vet", "-json", "-vettool="+bin, "./lentrows/...")
	if code != 0 {
		t.Fatalf("go vet -json: exit %d\n%s", code, vetErr)
	}
	vet := decodeDetailed(t, vetOut+vetErr, dir)
	if at(vet, lent) != 1 || at(vet, borrower) != 1 || at(vet, held) != 1 || at(vet, kept) != 1 {
		t.Errorf("go vet reports %d, %d, %d, %d findings at %s, %s, %s, %s; want 1 each (store's functions have no caller in their package):\n%v",
			at(vet, lent), at(vet, borrower), at(vet, held), at(vet, kept), lent, borrower, held, kept, vet)
	}
}

// TestLentPairsWholeProgram runs corpus/lentpairs, whose store functions
// lock two tables in an order on the transaction their callers in package
// svc lend them, through the command and go vet. The command sees that the
// callers of CreditDebit and DebitCredit take one advisory gate first, and
// that the runner of the callbacks that call SettlePayout and PayoutSettle
// does, and reports only the Hold/Release pair, which Release runs without
// it; go vet sees the store package alone and reports all three there.
func TestLentPairsWholeProgram(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	about := func(fs []detailed, tables string) int {
		n := 0
		for _, f := range fs {
			if f.Category == category.LockOrder && strings.Contains(f.Message, tables) {
				n++
			}
		}
		return n
	}
	const (
		gated   = "rows of lp_credits and rows of lp_debits"
		runner  = "rows of lp_payouts and rows of lp_settles" // gated by the runner of the callbacks
		ungated = "rows of lp_holds and rows of lp_releases"
	)
	out, stderr, code := runTool(t, dir, bin, "-json", "-cache=false", "./lentpairs/...")
	if code != exitFindings {
		t.Fatalf("pglockorder -json: exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	cli := decodeDetailed(t, out, dir)
	if about(cli, gated) != 0 || about(cli, runner) != 0 || about(cli, ungated) != 1 {
		t.Errorf("the command reports %d, %d and %d findings about %s, %s and %s; want 0, 0 and 1:\n%v",
			about(cli, gated), about(cli, runner), about(cli, ungated), gated, runner, ungated, cli)
	}
	vetOut, vetErr, code := runTool(t, dir, "go", "vet", "-json", "-vettool="+bin, "./lentpairs/...")
	if code != 0 {
		t.Fatalf("go vet -json: exit %d\n%s", code, vetErr)
	}
	vet := decodeDetailed(t, vetOut+vetErr, dir)
	if about(vet, gated) != 1 || about(vet, runner) != 1 || about(vet, ungated) != 1 {
		t.Errorf("go vet reports %d, %d and %d findings about %s, %s and %s; want 1 each (the store has no caller in its package):\n%v",
			about(vet, gated), about(vet, runner), about(vet, ungated), gated, runner, ungated, vet)
	}
}
