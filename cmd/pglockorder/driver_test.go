package main

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
)

// TestParallelSameResults analyses the corpus module sequentially and with
// several workers and checks that the units come back in the same order
// with the same edges and diagnostics: the schedule must not show in the
// output.
func TestParallelSameResults(t *testing.T) {
	for name, val := range map[string]string{"maxcycle": "4", "debug": "false"} {
		if err := analyzer.Analyzer.Flags.Set(name, val); err != nil {
			t.Fatal(err)
		}
	}
	render := func(workers int) []string {
		pkgs, err := load(&packages.Config{Mode: loadMode, Dir: "../../testdata/corpus", Tests: true}, []string{"./..."})
		if err != nil {
			t.Fatal(err)
		}
		if _, out := partition(pkgs); len(out) > 0 {
			t.Fatalf("packages of the corpus left out: %v", out)
		}
		units, _ := analyzeTimed(analyzer.Facts, pkgs, nil, workers, nil)
		var out []string
		for _, u := range units {
			out = append(out, "package "+u.pkg.ID)
			if u.err != nil {
				out = append(out, "error "+u.err.Error())
				continue
			}
			for _, d := range u.diagnostics {
				out = append(out, fmt.Sprintf("%s %s: %s", u.pkg.Fset.Position(d.Pos), d.Category, d.Message))
			}
			edges, err := u.part().Edges.edges()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range edges {
				out = append(out, fmt.Sprintf("edge %s %s -> %s gates %v at %s", e.Func, e.Held, e.Wanted, e.Gates, e.Anchor()))
			}
		}
		return out
	}
	seq := render(1)
	if len(seq) < 50 || !slices.ContainsFunc(seq, func(s string) bool { return len(s) > 5 && s[:5] == "edge " }) {
		t.Fatalf("the corpus gave %d lines and no edges: nothing to compare", len(seq))
	}
	for range 2 {
		par := render(4)
		if !slices.Equal(seq, par) {
			for i := range min(len(seq), len(par)) {
				if seq[i] != par[i] {
					t.Fatalf("line %d differs:\nsequential: %s\nparallel:   %s", i, seq[i], par[i])
				}
			}
			t.Fatalf("sequential %d lines, parallel %d", len(seq), len(par))
		}
	}
}

// TestLoadKnownExtras checks that a load told the packages an earlier run
// added to the patterns loads what a load without that knowledge loads,
// whether the knowledge is right or out of date.
func TestLoadKnownExtras(t *testing.T) {
	cfg := &packages.Config{Mode: loadMode, Dir: "../../testdata/program", Tests: true}
	patterns := []string{"./txctx/checkout", "./txctx/refunds"}
	ids := func(pkgs []*packages.Package) []string {
		var out []string
		for _, p := range pkgs {
			out = append(out, p.ID)
		}
		return out
	}
	want, extras, err := loadWith(cfg, patterns, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(extras, []string{"program/txctx/db"}) {
		t.Fatalf("extras %v, want the db package both import", extras)
	}
	for _, known := range [][]string{
		extras,                   // right
		{"program/txctx/orders"}, // out of date: not imported
		{},                       // none known
		{"program/txctx/payments", "program/txctx/db"}, // one too many
	} {
		got, again, err := loadWith(cfg, patterns, known)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(want)) || !slices.Equal(again, extras) {
			t.Errorf("known %v: loaded %v (extras %v), want %v (extras %v)", known, ids(got), again, ids(want), extras)
		}
	}
}

// TestFactsDroppedAfterLastReader analyses programs whose packages read
// each other's facts along imports and through the interfaces main wires
// in, and checks that each package's facts are gone once the last group
// that can read them is done (none is left at the end) and that no pass
// read a fact after its package's were dropped.
func TestFactsDroppedAfterLastReader(t *testing.T) {
	if err := analyzer.Analyzer.Flags.Set("debug", "false"); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../../testdata/program", "../../testdata/corpus"} {
		pkgs, err := load(&packages.Config{Mode: loadMode, Dir: dir, Tests: true}, []string{"./..."})
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 3} {
			units, st := analyzeTimed(analyzer.Facts, pkgs, nil, workers, nil)
			analysed := 0
			for _, u := range units {
				if u.err == nil && u.made != nil {
					analysed++
				}
			}
			if analysed < 5 {
				t.Fatalf("%s: %d packages analysed: nothing to check", dir, analysed)
			}
			if st.factsLeft != 0 || st.lateReads != 0 {
				t.Errorf("%s, %d workers: %d facts left at the end, %d read after their package's were dropped", dir, workers, st.factsLeft, st.lateReads)
			}
			for _, p := range pkgs {
				p.Syntax, p.Types, p.TypesInfo = nil, nil, nil
			}
		}
	}
}

// TestReadersOf checks the count of the groups that may read each
// package's facts: its own and every group that depends on it.
func TestReadersOf(t *testing.T) {
	// 0 <- 1 <- 3, 0 <- 2 <- 3, 4 alone; one package per group.
	groups := [][]int{{0}, {1}, {2}, {3}, {4}}
	groupDeps := [][]int{nil, {0}, {0}, {1, 2}, nil}
	order := make([]*packages.Package, 5)
	for i := range order {
		order[i] = &packages.Package{ID: strconv.Itoa(i)}
	}
	readers := readersOf(len(order), visibility(newTypeIndex(order), groups, groupDeps))
	want := []int32{4, 2, 2, 1, 1}
	for i, w := range want {
		if got := readers[i].Load(); got != w {
			t.Errorf("package %d: %d readers, want %d", i, got, w)
		}
	}
}
