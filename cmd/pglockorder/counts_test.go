package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// runCached runs the command in dir with the result cache in cacheDir.
func runCached(t *testing.T, bin, dir, cacheDir string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), cacheEnv+"="+cacheDir)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitFindings && exit.ExitCode() != exitClean {
			t.Fatalf("%v: %v\n%s", args, err, e.String())
		}
	}
	return o.String(), e.String()
}

var (
	dotNode     = regexp.MustCompile(`(?m)^\t(n\d+) \[label="((?:[^"\\]|\\.)*)"`)
	dotArrow    = regexp.MustCompile(`(?m)^\t(n\d+) -> (n\d+) \[`)
	mermaidNode = regexp.MustCompile(`(?m)^  (n\d+)\["((?:[^"])*)"\]$`)
	mermaidEdge = regexp.MustCompile(`(?m)^  (n\d+) -->\|"[^"]*"\| (n\d+)$`)
	graphLine   = regexp.MustCompile(`lock graph: (\d+) acquisition paths over (\d+) distinct lock pairs; -graph draws (\d+) of the pairs`)
)

// drawnPairs reads the arrows of a drawn graph as pairs of node labels.
func drawnPairs(t *testing.T, out string, node, arrow *regexp.Regexp) map[[2]string]bool {
	t.Helper()
	names := map[string]string{}
	for _, m := range node.FindAllStringSubmatch(out, -1) {
		names[m[1]] = m[2]
	}
	pairs := map[[2]string]bool{}
	for _, m := range arrow.FindAllStringSubmatch(out, -1) {
		from, okFrom := names[m[1]]
		to, okTo := names[m[2]]
		if !okFrom || !okTo {
			t.Fatalf("arrow %s -> %s between undeclared nodes:\n%s", m[1], m[2], out)
		}
		pairs[[2]string{from, to}] = true
	}
	return pairs
}

// TestGraphDrawsWhatVerboseCounts runs the command as a user would, with
// -graph=dot, -graph=mermaid and -v, and checks that the drawings show
// exactly the lock pairs that -v says -graph draws, and that -v's counts
// are those of the edges the cycle search ran on: read back from the
// result cache, which keeps them, and selected here as the drawing
// selects them (pairs that take part in a lock order, and those on a
// reported cycle).
func TestGraphDrawsWhatVerboseCounts(t *testing.T) {
	bin := buildTool(t)
	corpusDir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, corpusDir)
	for _, tc := range []struct {
		name, dir string
		patterns  []string
	}{
		{"example", filepath.Join("..", "..", "testdata", "example"), []string{"./..."}},
		{"corpus", corpusDir, []string{"./crossconn/...", "./labels/...", "./locktable/...", "./advisory/..."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cacheDir := t.TempDir()
			dot, errDot := runCached(t, bin, tc.dir, cacheDir, append([]string{"-v", "-graph=dot"}, tc.patterns...)...)
			mermaid, errMermaid := runCached(t, bin, tc.dir, cacheDir, append([]string{"-v", "-graph=mermaid"}, tc.patterns...)...)
			if !strings.Contains(errMermaid, "results from the cache") {
				t.Fatalf("the second run did not use the cache:\n%s", errMermaid)
			}
			m := graphLine.FindStringSubmatch(errDot)
			if m == nil {
				t.Fatalf("-v prints no lock graph line:\n%s", errDot)
			}
			if m2 := graphLine.FindStringSubmatch(errMermaid); m2 == nil || m2[0] != m[0] {
				t.Errorf("-v on the cached run says %q, the fresh run %q", m2, m[0])
			}
			paths, _ := strconv.Atoi(m[1])
			pairs, _ := strconv.Atoi(m[2])
			drawn, _ := strconv.Atoi(m[3])
			dotPairs := drawnPairs(t, dot, dotNode, dotArrow)
			mermaidPairs := drawnPairs(t, mermaid, mermaidNode, mermaidEdge)
			if len(dotPairs) != drawn || len(mermaidPairs) != drawn {
				t.Errorf("-v says -graph draws %d pairs; DOT draws %d, Mermaid %d", drawn, len(dotPairs), len(mermaidPairs))
			}
			for p := range dotPairs {
				if !mermaidPairs[p] {
					t.Errorf("DOT draws %v, Mermaid does not", p)
				}
			}

			// The edges the cycle search ran on, as the cache keeps them.
			var entry *cachedResults
			var edges lockgraph.EdgeList
			files, err := filepath.Glob(filepath.Join(cacheDir, "*"+edgesSuffix))
			if err != nil || len(files) != 1 {
				t.Fatalf("want one cache entry in %s, have %v (%v)", cacheDir, files, err)
			}
			entry = &cachedResults{}
			if !readGob(strings.TrimSuffix(files[0], edgesSuffix), entry) || !readGob(files[0], &edges) {
				t.Fatalf("cannot read the cache entry %s", files[0])
			}
			temps := map[string]bool{}
			for _, tt := range entry.Temps {
				temps[tt] = true
			}
			g := lockgraph.New(lockgraph.WithoutTables(edges, temps))
			onCycle := map[[2]lockgraph.Class]bool{}
			for _, c := range entry.Cycles {
				for _, s := range c.Steps {
					onCycle[[2]lockgraph.Class{s.Held.Class, s.Wanted.Class}] = true
				}
			}
			all, want := map[[2]string]bool{}, map[[2]string]bool{}
			for _, e := range g.Edges() {
				k := [2]string{e.Held.Class.Describe(), e.Wanted.Class.Describe()}
				all[k] = true
				if analyzer.Ordered(e) || onCycle[[2]lockgraph.Class{e.Held.Class, e.Wanted.Class}] {
					want[k] = true
				}
			}
			if len(g.Edges()) != paths || len(all) != pairs {
				t.Errorf("-v counts %d paths over %d pairs; the cycle search's graph has %d edges over %d pairs",
					paths, pairs, len(g.Edges()), len(all))
			}
			if drawn == 0 || len(entry.Cycles) == 0 {
				t.Fatalf("nothing drawn (%d pairs) or no cycle (%d): the case checks nothing", drawn, len(entry.Cycles))
			}
			for p := range dotPairs {
				if !want[p] {
					t.Errorf("-graph draws %v, which is not an ordered pair of the cycle search's graph", p)
				}
			}
			for p := range want {
				if !dotPairs[p] {
					t.Errorf("-graph does not draw %v, an ordered pair of the cycle search's graph", p)
				}
			}
		})
	}
}

// TestVerboseFromCache checks that a run whose results come from the cache
// prints what -v printed when they were computed: the SQL skipped as
// another dialect's and the packages not analysed as PostgreSQL, the SQL
// counts and the lock graph's.
func TestVerboseFromCache(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "dialect"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	cacheDir := t.TempDir()
	_, fresh := runCached(t, bin, dir, cacheDir, "-v", "./...")
	_, cached := runCached(t, bin, dir, cacheDir, "-v", "./...")
	if !strings.Contains(cached, "results from the cache") {
		t.Fatalf("the second run did not use the cache:\n%s", cached)
	}
	keep := func(s string) []string {
		var out []string
		for line := range strings.SplitSeq(s, "\n") {
			for _, p := range []string{"pglockorder: SQL", "pglockorder: dialect of", "pglockorder: lock graph:"} {
				if strings.HasPrefix(line, p) {
					out = append(out, line)
				}
			}
		}
		return out
	}
	f, c := keep(fresh), keep(cached)
	if strings.Join(f, "\n") != strings.Join(c, "\n") {
		t.Errorf("-v on a cached run differs:\n--- fresh\n%s\n--- cached\n%s", strings.Join(f, "\n"), strings.Join(c, "\n"))
	}
	for _, want := range []string{
		"pglockorder: SQL skipped (dialect mysql): 12",
		"dialect of dialect/store/mysql: mysql",
		"skipped as another dialect's",
	} {
		if !strings.Contains(cached, want) {
			t.Errorf("-v on a cached run does not say %q:\n%s", want, cached)
		}
	}
}
