package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pglockorder/pglockorder/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files of the reporters")

// copyModule copies a testdata module into a temporary directory, where a
// test may edit it.
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editFile rewrites a file of a copied module.
func editFile(t *testing.T, name string, edit func(string) string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", file, got, want)
	}
}

// TestReporters checks each output format on the gate module against its
// golden file.
func TestReporters(t *testing.T) {
	bin := buildTool(t)
	dir := gateModule(t)
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"gate.txt", nil, exitFindings},
		{"gate.json", []string{"-json"}, exitFindings},
		{"gate.json", []string{"-format=json"}, exitFindings},
		{"gate.sarif", []string{"-format=sarif"}, exitFindings},
		{"gate.github", []string{"-format=github"}, exitFindings},
		{"gate.mmd", []string{"-graph=mermaid"}, exitFindings},
		{"gate.dot", []string{"-graph=dot"}, exitFindings},
		{"gate.order", []string{"-suggest-order"}, exitFindings},
	} {
		out, stderr, code := runTool(t, dir, bin, append(tc.args, "./...")...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, stderr)
			continue
		}
		// The version changes with every commit: the golden file has a
		// placeholder (TestVersion checks the value).
		out = driverVersion.ReplaceAllString(out, `${1}"VERSION"`)
		golden(t, tc.golden, out)
	}
}

// driverVersion matches SARIF's tool.driver.version.
var driverVersion = regexp.MustCompile(`("name": "pglockorder",\n\s+"version": )"[^"]*"`)

// TestTextColor checks the coloured text format against its golden file
// and that colour is used only on a terminal without NO_COLOR.
func TestTextColor(t *testing.T) {
	f := finding{Posn: "api/api.go:21:29", Category: "lock-order", Message: "lock-order inversion: a and b\n  path 1: x\n  fix: take a before b"}
	var b bytes.Buffer
	if err := writeText(&b, []finding{f}, true); err != nil {
		t.Fatal(err)
	}
	golden(t, "color.txt", b.String())
	b.Reset()
	if err := writeText(&b, []finding{f}, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b[") {
		t.Errorf("plain text has escapes: %q", b.String())
	}
	for _, tc := range []struct {
		format  string
		term    bool
		noColor string
		want    bool
	}{
		{"text", true, "", true},
		{"text", true, "1", false},
		{"text", false, "", false},
		{"json", true, "", false},
	} {
		if got := colorWanted(tc.format, tc.term, tc.noColor); got != tc.want {
			t.Errorf("colorWanted(%q, %t, %q) = %t", tc.format, tc.term, tc.noColor, got)
		}
	}
	// A pipe is not a terminal.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	if isTerminal(w) {
		t.Error("a pipe counts as a terminal")
	}
}

// TestUsageGate checks the usage errors of the gate's flags.
func TestUsageGate(t *testing.T) {
	bin := buildTool(t)
	for _, args := range [][]string{
		{"-format=xml"},
		{"-json", "-format=sarif"},
		{"-graph=png"},
		{"-baseline=a", "-write-baseline=b"},
		{"-graph=dot", "-suggest-order"},
		{"-config=/no/such/file.yaml"},
	} {
		_, stderr, code := runTool(t, ".", bin, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
	}
}

// sarifSchema returns the official SARIF 2.1.0 JSON schema (OASIS,
// errata 01), which the gosec module that golangci-lint depends on ships;
// testdata/golangci's go.sum pins it.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-json", "github.com/securego/gosec/v2")
	cmd.Dir = filepath.Join("..", "..", "testdata", "golangci")
	out, err := cmd.Output()
	var mod struct{ Dir string }
	if err == nil {
		err = json.Unmarshal(out, &mod)
	}
	file := filepath.Join(mod.Dir, "report", "sarif", "testdata", "sarif-schema-2.1.0.json")
	if _, statErr := os.Stat(file); err != nil || mod.Dir == "" || statErr != nil {
		testenv.Skip(t, "the SARIF 2.1.0 schema", fmt.Sprintf("it comes with the gosec module: run `cd testdata/golangci && go mod download` (as .ci/run does) (%v)", err))
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return s
}

// sarifOf runs the command with -format=sarif and returns the log, checked
// against the schema.
func sarifOf(t *testing.T, schema *jsonschema.Schema, bin, dir string, args ...string) sarifLog {
	t.Helper()
	out, stderr, code := runTool(t, dir, bin, append([]string{"-format=sarif"}, args...)...)
	if code != exitFindings && code != exitClean {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v\n%s", err, out)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("SARIF output does not validate against the 2.1.0 schema: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	return log
}

// TestSARIF validates the SARIF of the bundled example and of the gate
// module against the SARIF 2.1.0 schema, and checks what code scanning
// relies on: one rule per category, a thread flow per path, links from the
// message to related locations, and fingerprints that survive a line
// shift.
func TestSARIF(t *testing.T) {
	bin := buildTool(t)
	schema := sarifSchema(t)
	// The schema rejects what is not SARIF 2.1.0.
	bad, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"version": "2.1.0", "runs": [{"results": []}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if schema.Validate(bad) == nil {
		t.Fatal("the schema accepts a run without a tool")
	}
	ex := sarifOf(t, schema, bin, example(t), "./...")
	if n := len(ex.Runs[0].Results); n != 1 {
		t.Fatalf("%d results for the example, want 1", n)
	}
	dir := copyModule(t, gateModule(t))
	log := sarifOf(t, schema, bin, dir, "./...")
	run := log.Runs[0]
	ids := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		if ids[r.ID] || r.Help.Text == "" {
			t.Errorf("rule %q repeated or without help", r.ID)
		}
		ids[r.ID] = true
	}
	if len(run.Results) != 1 {
		t.Fatalf("%d results, want 1", len(run.Results))
	}
	res := run.Results[0]
	if res.RuleID != "lock-order" || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
		t.Errorf("result rule %q, index %d", res.RuleID, res.RuleIndex)
	}
	if len(res.CodeFlows) != 1 || len(res.CodeFlows[0].ThreadFlows) != 2 {
		t.Fatalf("want one code flow with a thread flow per path: %+v", res.CodeFlows)
	}
	for i, tf := range res.CodeFlows[0].ThreadFlows {
		if len(tf.Locations) != 2 {
			t.Errorf("thread flow %d: %d locations, want the held and the wanted request", i, len(tf.Locations))
		}
	}
	links := regexp.MustCompile(`\]\((\d+)\)`).FindAllStringSubmatch(res.Message.Text, -1)
	if len(links) != 4 || len(res.RelatedLocations) != 4 {
		t.Errorf("%d links and %d related locations, want 4 each:\n%s", len(links), len(res.RelatedLocations), res.Message.Text)
	}
	related := map[string]bool{}
	for _, rl := range res.RelatedLocations {
		if rl.ID != nil {
			related[strconv.Itoa(*rl.ID)] = true
		}
	}
	for _, l := range links {
		if !related[l[1]] {
			t.Errorf("link %s has no related location", l[0])
		}
	}
	before := res.PartialFingerprints[fingerprintKey]
	// Lines added above both paths move every position.
	for _, f := range []string{"api/api.go", "store/store.go"} {
		editFile(t, filepath.Join(dir, f), func(s string) string {
			return strings.Replace(s, "\nimport", "\n// Shifted.\n\n// More.\nimport", 1)
		})
	}
	shifted := sarifOf(t, schema, bin, dir, "./...").Runs[0].Results[0]
	if shifted.Locations[0].PhysicalLocation.Region.StartLine == res.Locations[0].PhysicalLocation.Region.StartLine {
		t.Fatal("the edit did not move the finding")
	}
	if after := shifted.PartialFingerprints[fingerprintKey]; after != before || before == "" {
		t.Errorf("fingerprint %q changed to %q when lines shifted", before, after)
	}
}

// extraInversion is a second inversion for the gate module: it locks
// subscriptions and then usage records, like the store, while a new
// function in the same package locks them the other way round.
const extraInversion = `package api

import (
	"context"

	"example.com/gate/store"
)

// Backfill locks the usage records first, then the subscription.
func Backfill(ctx context.Context, s *store.Store, account int64) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM usage_records WHERE account_id = $1", account); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE subscriptions SET plan = 'free' WHERE account_id = $1", account); err != nil {
		return err
	}
	return tx.Commit()
}
`

// TestBaseline accepts today's finding, checks that unrelated edits keep
// the gate green, and that a new inversion fails it with only the new
// finding reported.
func TestBaseline(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	base := filepath.Join(dir, "pglockorder-baseline.json")
	if out, stderr, code := runTool(t, dir, bin, "-write-baseline="+base, "./..."); code != exitClean || out != "" {
		t.Fatalf("-write-baseline: exit %d, output %q\n%s", code, out, stderr)
	}
	if out, stderr, code := runTool(t, dir, bin, "-baseline="+base, "./..."); code != exitClean || out != "" {
		t.Fatalf("-baseline right after writing it: exit %d, output %q\n%s", code, out, stderr)
	}
	editFile(t, filepath.Join(dir, "api", "api.go"), func(s string) string {
		return strings.Replace(s, "\nimport", "\n// An unrelated edit.\n\nimport", 1)
	})
	if out, stderr, code := runTool(t, dir, bin, "-baseline="+base, "./..."); code != exitClean || out != "" {
		t.Fatalf("-baseline after lines moved: exit %d, output %q\n%s", code, out, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "api", "backfill.go"), []byte(extraInversion), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runTool(t, dir, bin, "-baseline="+base, "./...")
	if code != exitFindings || !strings.Contains(out, "api.Backfill") || strings.Count(out, "lock-order inversion") != 1 {
		t.Fatalf("-baseline with a new inversion: exit %d, want %d and only the new finding\n%s\n%s", code, exitFindings, out, stderr)
	}
	// With the inversions fixed, the baseline says its entries are stale.
	if err := os.Remove(filepath.Join(dir, "api", "backfill.go")); err != nil {
		t.Fatal(err)
	}
	editFile(t, filepath.Join(dir, "api", "api.go"), func(s string) string {
		return strings.Replace(s, `"UPDATE usage_records SET billed = false WHERE account_id = $1"`,
			`"SELECT 1 FROM subscriptions WHERE account_id = $1 FOR UPDATE"`, 1)
	})
	if out, stderr, code := runTool(t, dir, bin, "-baseline="+base, "./..."); code != exitClean || out != "" || !strings.Contains(stderr, "1 finding(s) of the baseline") {
		t.Errorf("-baseline after the fix: exit %d, output %q\n%s", code, out, stderr)
	}
	if _, stderr, code := runTool(t, dir, bin, "-baseline="+filepath.Join(dir, "missing.json"), "./..."); code != exitUsage {
		t.Errorf("a missing baseline: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
}

// TestIgnoreDirective suppresses the gate module's finding with a
// directive, in the command and under go vet, and checks that a stale
// directive is reported by both.
func TestIgnoreDirective(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	api := filepath.Join(dir, "api", "api.go")
	editFile(t, api, func(s string) string {
		return strings.Replace(s, "\tif _, err := tx.ExecContext(ctx, \"UPDATE subscriptions",
			"\t//pglockorder:ignore tier changes run in the nightly window only\n\tif _, err := tx.ExecContext(ctx, \"UPDATE subscriptions", 1)
	})
	if out, stderr, code := runTool(t, dir, bin, "./..."); code != exitClean || out != "" {
		t.Errorf("command with the directive: exit %d, output %q\n%s", code, out, stderr)
	}
	if got := vetIssues(t, bin, dir, "./..."); len(got) != 0 {
		t.Errorf("go vet with the directive: %v", got)
	}
	// Moved away from the finding, it suppresses nothing.
	editFile(t, api, func(s string) string {
		s = strings.Replace(s, "\t//pglockorder:ignore tier changes run in the nightly window only\n", "", 1)
		return strings.Replace(s, "\tdefer tx.Rollback()", "\t//pglockorder:ignore stale\n\tdefer tx.Rollback()", 1)
	})
	out, _, code := runTool(t, dir, bin, "./...")
	if code != exitFindings || !strings.Contains(out, "api/api.go:17:2: pglockorder:ignore (stale) suppresses nothing") ||
		!strings.Contains(out, "lock-order inversion") {
		t.Errorf("command with a stale directive: exit %d\n%s", code, out)
	}
	vet := vetIssues(t, bin, dir, "./...")
	if len(vet) != 2 || !strings.Contains(vet[0].String()+vet[1].String(), "api/api.go:17:2: pglockorder:ignore (stale) suppresses nothing") {
		t.Errorf("go vet with a stale directive: %v", vet)
	}
}

// TestDeclaredOrderVet checks, as a new user would, that go vet reports a
// lock taken against the declared order in a single package that has no
// cycle: the store alone, with an order that puts usage records first.
func TestDeclaredOrderVet(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	if err := os.WriteFile(filepath.Join(dir, ".pglockorder.yaml"), []byte("order:\n  - usage_records\n  - subscriptions\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := vetIssues(t, bin, dir, "./store")
	if len(got) != 2 {
		t.Fatalf("go vet ./store: %d findings, want Invoice and Refund\n%v", len(got), got)
	}
	for _, want := range []string{
		"store/store.go:25:29: declared lock order violated: store.Store.Invoice requests rows of usage_records (FOR NO KEY UPDATE) while holding rows of subscriptions (FOR UPDATE), taken at store/store.go:22:29; the declared order (.pglockorder.yaml) puts usage_records before subscriptions: usage_records < subscriptions",
		"store/store.go:41:29: declared lock order violated: store.Store.Refund",
	} {
		if !strings.Contains(got[0].String()+"\n"+got[1].String(), want) {
			t.Errorf("go vet output lacks %q:\n%v", want, got)
		}
	}
	// The same through -pglockorder.config= with a file elsewhere, and
	// through the command's -config.
	other := filepath.Join(t.TempDir(), "order.yaml")
	if err := os.Rename(filepath.Join(dir, ".pglockorder.yaml"), other); err != nil {
		t.Fatal(err)
	}
	if got := vetIssues(t, bin, dir, "-pglockorder.config="+other, "./store"); len(got) != 2 {
		t.Errorf("go vet -pglockorder.config: %v", got)
	}
	out, stderr, code := runTool(t, dir, bin, "-config="+other, "./store")
	if code != exitFindings || strings.Count(out, "declared lock order violated") != 2 {
		t.Errorf("pglockorder -config: exit %d\n%s\n%s", code, out, stderr)
	}
	// A malformed file is an error, not a silent pass.
	if err := os.WriteFile(other, []byte("order: [a]\nextra: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runTool(t, dir, bin, "-config="+other, "./store")
	if code != exitUsage || !strings.Contains(stderr, `unknown key "extra"`) {
		t.Errorf("malformed config: exit %d\n%s", code, stderr)
	}
}

// TestGraphRenders renders the DOT graph of the corpus's seed scenario with
// Graphviz and checks that the cycle's locks and its red arrows are there.
func TestGraphRenders(t *testing.T) {
	bin := buildTool(t)
	dotBin, err := exec.LookPath("dot")
	if err != nil {
		testenv.Skip(t, "Graphviz (dot)", "apt-get install graphviz (.ci/run does)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	out, stderr, code := runTool(t, dir, bin, "-graph=dot", "./seed/...")
	if code != exitFindings {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	cmd := exec.Command(dotBin, "-Tsvg")
	cmd.Stdin = strings.NewReader(out)
	var svg, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &svg, &errOut
	if err := cmd.Run(); err != nil || errOut.Len() > 0 {
		t.Fatalf("dot -Tsvg: %v\n%s\n%s", err, errOut.String(), out)
	}
	for _, want := range []string{"<svg", "rows of subscriptions", "rows of usage_records", `stroke="red"`} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// TestSuggestOrder checks the suggested order of the fixed example, where
// every path agrees.
func TestSuggestOrder(t *testing.T) {
	bin := buildTool(t)
	out, stderr, code := runTool(t, example(t), bin, "-tags=fixed", "-suggest-order", "./...")
	if code != exitClean || !strings.Contains(out, "order:\n  - \"advisory:(<accountid>)\"\n  - subscriptions\n  - usage_records\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

func TestTopoSort(t *testing.T) {
	edges := func(pairs ...string) map[string]map[string]bool {
		m := map[string]map[string]bool{}
		for _, p := range pairs {
			from, to, _ := strings.Cut(p, ">")
			if m[from] == nil {
				m[from] = map[string]bool{}
			}
			m[from][to] = true
		}
		return m
	}
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		names     map[string]bool
		succ      map[string]map[string]bool
		wantOrder string
		wantStuck string
	}{
		{"chain", set("a", "b", "c"), edges("c>b", "b>a"), "c b a", ""},
		{"ties by name", set("x", "a", "m"), edges(), "a m x", ""},
		// a starts a chain into a cycle b>c>d>b with a tail e: only the
		// cycle's names are stuck.
		{"cycle with tails", set("a", "b", "c", "d", "e"), edges("a>b", "b>c", "c>d", "d>b", "d>e"), "a", "b c d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order, stuck := topoSort(tc.names, tc.succ)
			var s []string
			for n := range stuck {
				s = append(s, n)
			}
			slices.Sort(s)
			if got := strings.Join(order, " "); got != tc.wantOrder {
				t.Errorf("order %q, want %q", got, tc.wantOrder)
			}
			if got := strings.Join(s, " "); got != tc.wantStuck {
				t.Errorf("stuck %q, want %q", got, tc.wantStuck)
			}
		})
	}
}

// TestColorOnTerminal runs the command under a pseudo-terminal (util-linux
// script): the text is coloured there, and not with NO_COLOR set.
func TestColorOnTerminal(t *testing.T) {
	bin := buildTool(t)
	script, err := exec.LookPath("script")
	if err != nil {
		testenv.Skip(t, "script(1) from util-linux", "it runs the command on a terminal; apt-get install util-linux")
	}
	for _, tc := range []struct {
		noColor bool
		want    bool
	}{{false, true}, {true, false}} {
		cmd := exec.Command(script, "-q", "-e", "-c", bin+" ./...", os.DevNull)
		cmd.Dir = gateModule(t)
		cmd.Env = os.Environ()
		for i, kv := range cmd.Env {
			if strings.HasPrefix(kv, "NO_COLOR=") {
				cmd.Env[i] = "PGLOCKORDER_UNSET_NO_COLOR=1"
			}
		}
		if tc.noColor {
			cmd.Env = append(cmd.Env, "NO_COLOR=1")
		}
		out, _ := cmd.Output() // exit status 3: findings
		if !strings.Contains(string(out), "lock-order inversion") {
			t.Fatalf("no finding on the terminal:\n%q", out)
		}
		if got := strings.Contains(string(out), ansiRed+"lock-order inversion"); got != tc.want {
			t.Errorf("NO_COLOR set: %t: coloured %t, want %t\n%q", tc.noColor, got, tc.want, out)
		}
	}
}
