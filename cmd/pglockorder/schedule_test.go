package main

import (
	"fmt"
	"go/types"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestCondense checks the grouping of packages that depend on each other
// (through imports and implemented interfaces) and the order of the
// groups: every group after the groups it depends on.
func TestCondense(t *testing.T) {
	for _, tc := range []struct {
		name   string
		deps   map[int][]int
		n      int
		groups string
	}{
		{"no edges", nil, 3, "[[0] [1] [2]]"},
		{"chain", map[int][]int{2: {1}, 1: {0}}, 3, "[[0] [1] [2]]"},
		// The domain (0) calls a port its adapter (1) implements; the
		// adapter imports the domain; main (2) imports both.
		{"port and adapter", map[int][]int{0: {1}, 1: {0}, 2: {0, 1}}, 3, "[[0 1] [2]]"},
		{"two cycles and a bridge", map[int][]int{0: {1}, 1: {0}, 2: {3, 1}, 3: {2}, 4: {2}}, 5, "[[0 1] [2 3] [4]]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			groups, groupDeps := condense(tc.n, func(i int) []int { return tc.deps[i] })
			if got := fmt.Sprint(groups); got != tc.groups {
				t.Fatalf("groups %s, want %s", got, tc.groups)
			}
			groupOf := map[int]int{}
			for g, members := range groups {
				for _, v := range members {
					groupOf[v] = g
				}
			}
			for v, ds := range tc.deps {
				for _, w := range ds {
					g, h := groupOf[v], groupOf[w]
					if g != h && (h > g || !slices.Contains(groupDeps[g], h)) {
						t.Errorf("%d depends on %d: group %d must come after group %d and list it (%v)", v, w, g, h, groupDeps[g])
					}
				}
			}
		})
	}
}

// TestVisibility checks that a group sees the facts of its own packages and
// of every group it depends on, directly or not, and of no other; and that
// a package's types are known only once they are added (checked).
func TestVisibility(t *testing.T) {
	order := make([]*packages.Package, 4)
	for i := range order {
		order[i] = &packages.Package{Types: types.NewPackage(fmt.Sprintf("m/p%d", i), fmt.Sprintf("p%d", i))}
	}
	groups := [][]int{{0}, {1, 2}, {3}}
	groupDeps := [][]int{nil, {0}, {1}}
	idx := newTypeIndex(order)
	vis := visibility(idx, groups, groupDeps)
	for i := range 3 {
		idx.add(i)
	}
	if vis[2].contains(order[3].Types) {
		t.Error("the types of a package not added yet are visible")
	}
	idx.add(3)
	want := [][]bool{
		{true, false, false, false},
		{true, true, true, false},
		{true, true, true, true},
	}
	for g := range groups {
		for i, p := range order {
			if got := vis[g].contains(p.Types); got != want[g][i] {
				t.Errorf("group %d sees %s: %t, want %t", g, p.Types.Path(), got, want[g][i])
			}
			if got := vis[g].containsPackage(p); got != want[g][i] {
				t.Errorf("group %d sees package %s: %t, want %t", g, p.Types.Path(), got, want[g][i])
			}
		}
	}
	if got := len(vis[1].packages()); got != 3 {
		t.Errorf("group 1 lists %d packages, want 3", got)
	}
	if vis[2].contains(types.NewPackage("m/other", "other")) {
		t.Error("a package outside the run is visible")
	}
	if vis[2].containsPackage(&packages.Package{}) {
		t.Error("a package outside the run is visible")
	}
}

// TestSameBinary checks which package variants can provide the dynamic
// types of another's interface values: production packages anywhere, a test
// binary's variants only to packages of that test binary.
func TestSameBinary(t *testing.T) {
	pkg := func(id string) *packages.Package { return &packages.Package{ID: id} }
	for _, tc := range []struct {
		p, q string
		want bool
	}{
		{"m/app", "m/store", true},
		{"m/app [m/app.test]", "m/store", true},
		{"m/app", "m/store [m/app.test]", false},
		{"m/app [m/app.test]", "m/store [m/app.test]", true},
		{"m/app [m/app.test]", "m/store [m/store.test]", false},
	} {
		if got := sameBinary(pkg(tc.p), pkg(tc.q)); got != tc.want {
			t.Errorf("sameBinary(%q, %q) = %t, want %t", tc.p, tc.q, got, tc.want)
		}
	}
}
