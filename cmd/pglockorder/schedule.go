package main

import (
	"go/types"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// implDeps returns, for each type-checked package of order, the other
// packages of order that declare a method implementing an interface method
// it calls (calls[i], calledInterfaces): the analysis of a call through an
// interface applies the summaries of its implementations, so they are
// analysed first, although the caller does not import them (a port
// declared in the domain, its adapter wired in main). Packages that failed
// to type-check have none.
func implDeps(order []*packages.Package, failed []error, calls [][]ifaceCall) map[int][]int {
	type impl struct {
		pkg   int
		named *types.Named
	}
	byName := map[string][]impl{}
	for i, p := range order {
		if failed[i] != nil {
			continue
		}
		for name, ts := range lockseq.IndexTypesWithMethod(p.Types) {
			for _, named := range ts {
				byName[name] = append(byName[name], impl{i, named})
			}
		}
	}
	out := map[int][]int{}
	for i := range order {
		if failed[i] != nil {
			continue
		}
		deps := map[int]bool{}
		for _, c := range calls[i] {
			for _, m := range byName[c.name] {
				if m.pkg != i && !deps[m.pkg] && sameBinary(order[i], order[m.pkg]) &&
					(types.Implements(m.named, c.iface) || types.Implements(types.NewPointer(m.named), c.iface)) {
					deps[m.pkg] = true
				}
			}
		}
		for j := range deps {
			out[i] = append(out[i], j)
		}
		slices.Sort(out[i])
	}
	return out
}

// condense groups the n tasks into the strongly connected components of
// the graph where i has an edge to each of deps(i) (Tarjan's algorithm),
// each group's members in ascending order, and returns the dependencies
// between the groups.
func condense(n int, deps func(int) []int) (groups [][]int, groupDeps [][]int) {
	var (
		index   = make([]int, n)
		low     = make([]int, n)
		onStack = make([]bool, n)
		stack   []int
		next    = 1
		groupOf = make([]int, n)
	)
	var connect func(v int)
	connect = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range deps(v) {
			switch {
			case index[w] == 0:
				connect(w)
				low[v] = min(low[v], low[w])
			case onStack[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var g []int
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			groupOf[w] = len(groups)
			g = append(g, w)
			if w == v {
				break
			}
		}
		slices.Sort(g)
		groups = append(groups, g)
	}
	for v := range n {
		if index[v] == 0 {
			connect(v)
		}
	}
	groupDeps = make([][]int, len(groups))
	for g, members := range groups {
		seen := map[int]bool{}
		for _, v := range members {
			for _, w := range deps(v) {
				if h := groupOf[w]; h != g && !seen[h] {
					seen[h] = true
					groupDeps[g] = append(groupDeps[g], h)
				}
			}
		}
		slices.Sort(groupDeps[g])
	}
	return groups, groupDeps
}

// visibility returns, for each group, the packages whose facts its
// analysis may read: its own and those of every group it depends on,
// directly or not. Tarjan's algorithm lists a group after every group it
// depends on, so one pass in that order suffices.
func visibility(idx *typeIndex, groups, groupDeps [][]int) []*visibleSet {
	words := (len(idx.order) + 63) / 64
	out := make([]*visibleSet, len(groups))
	for g, members := range groups {
		set := make([]uint64, words)
		for _, i := range members {
			set[i/64] |= 1 << (i % 64)
		}
		for _, h := range groupDeps[g] {
			for w := range set {
				set[w] |= out[h].set[w]
			}
		}
		out[g] = &visibleSet{idx: idx, set: set}
	}
	return out
}

// typeIndex gives the place in the run's order of each analysed package,
// and of its types once they are checked: packages are type-checked as
// their turn comes (driver.go), so the index is filled as the run goes.
type typeIndex struct {
	order []*packages.Package
	of    map[*packages.Package]int
	mu    sync.RWMutex
	pos   map[*types.Package]int
}

func newTypeIndex(order []*packages.Package) *typeIndex {
	idx := &typeIndex{order: order, of: make(map[*packages.Package]int, len(order)), pos: make(map[*types.Package]int, len(order))}
	for i, p := range order {
		idx.of[p] = i
	}
	return idx
}

// add records the types of order[i], once they are checked.
func (idx *typeIndex) add(i int) {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	idx.pos[idx.order[i].Types] = i
}

// visibleSet is the set of packages whose facts one group's analysis reads.
type visibleSet struct {
	idx *typeIndex
	set []uint64
}

// has reports whether order[i]'s facts are visible.
func (v *visibleSet) has(i int) bool {
	return v.set[i/64]&(1<<(i%64)) != 0
}

// contains reports whether the facts of t are visible.
func (v *visibleSet) contains(t *types.Package) bool {
	v.idx.mu.RLock()
	i, ok := v.idx.pos[t]
	v.idx.mu.RUnlock()
	return ok && v.has(i)
}

// containsPackage reports whether the facts of p are visible.
func (v *visibleSet) containsPackage(p *packages.Package) bool {
	i, ok := v.idx.of[p]
	return ok && v.has(i)
}

// packages lists the visible packages, in the order of the run. Each was
// type-checked before the group's turn came.
func (v *visibleSet) packages() []*types.Package {
	var out []*types.Package
	for i, p := range v.idx.order {
		if v.has(i) && p.Types != nil {
			out = append(out, p.Types)
		}
	}
	return out
}

// sameBinary reports whether the types of package q can be the dynamic
// types of p's interface values: a package built for one test binary
// ("store [app.test]", with the mocks of app's tests) is linked only with
// the packages of that test binary, never into production code.
func sameBinary(p, q *packages.Package) bool {
	tb := testBinary(q)
	return tb == "" || tb == testBinary(p)
}

// testBinary returns the test binary a package variant is built for
// ("app.test" for "store [app.test]"), or "".
func testBinary(p *packages.Package) string {
	_, rest, ok := strings.Cut(p.ID, " [")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(rest, "]")
}
