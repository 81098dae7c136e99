package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The program corpus (testdata/program) holds services whose lock orders
// only a whole-program analysis sees: ports declared in a domain package
// and implemented in an adapter that only main wires in, transactions that
// travel as interface values or in contexts. TestProgram runs the command
// on each scenario (a top-level directory) and checks its findings
// against the scenario's expectations, written as analysistest's are: a
// comment // want `regexp` on the line of each finding's position, which
// must match the finding's first line. A finding without a want, or a want
// without a finding, fails the test.

// wantComment matches a want comment and its expectations.
var wantComment = regexp.MustCompile(`//\s*want\s+(.*)$`)

// wantPattern matches one expectation: a back-quoted or double-quoted
// regular expression.
var wantPattern = regexp.MustCompile("`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\"")

// expectation is one want of a scenario.
type expectation struct {
	posn string // file:line, relative to the module
	re   *regexp.Regexp
	met  bool
}

// readWants collects the want comments of the Go files under dir; file
// names are relative to root.
func readWants(t *testing.T, root, dir string) []*expectation {
	t.Helper()
	var out []*expectation
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			m := wantComment.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			for _, lit := range wantPattern.FindAllString(m[1], -1) {
				text := lit[1 : len(lit)-1]
				if lit[0] == '"' {
					if text, err = strconv.Unquote(lit); err != nil {
						return fmt.Errorf("%s:%d: %w", rel, i+1, err)
					}
				}
				re, err := regexp.Compile(text)
				if err != nil {
					return fmt.Errorf("%s:%d: %w", rel, i+1, err)
				}
				out = append(out, &expectation{posn: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), i+1), re: re})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProgram(t *testing.T) {
	bin := buildTool(t)
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "program"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, root)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			wants := readWants(t, root, filepath.Join(root, e.Name()))
			out, stderr, code := runTool(t, root, bin, "-json", "-cache=false", "./"+e.Name()+"/...")
			if code != exitFindings && code != exitClean {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var tree map[string]map[string][]struct{ Posn, Message string }
			if err := json.Unmarshal([]byte(out), &tree); err != nil {
				t.Fatalf("-json output: %v\n%s", err, out)
			}
			var unexpected []string
			for _, byAnalyzer := range tree {
				for _, f := range byAnalyzer["pglockorder"] {
					file, _, _ := strings.Cut(f.Posn, ":")
					line := strings.Split(f.Posn, ":")[1]
					first, _, _ := strings.Cut(f.Message, "\n")
					i := slices.IndexFunc(wants, func(w *expectation) bool {
						return w.posn == file+":"+line && w.re.MatchString(first)
					})
					if i < 0 {
						unexpected = append(unexpected, f.Posn+": "+f.Message)
						continue
					}
					wants[i].met = true
				}
			}
			for _, u := range unexpected {
				t.Errorf("unexpected finding:\n%s", u)
			}
			for _, w := range wants {
				if !w.met {
					t.Errorf("%s: no finding matching %q", w.posn, w.re)
				}
			}
		})
	}
}
