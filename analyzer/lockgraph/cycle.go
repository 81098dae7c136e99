package lockgraph

import (
	"slices"
	"sort"
	"strings"
)

// Severity orders the kinds of deadlock by how badly they fail.
type Severity uint8

// Severities, mildest first.
const (
	// Detected is a cycle PostgreSQL's deadlock detector breaks: one
	// transaction fails with 40P01 after deadlock_timeout.
	Detected Severity = iota + 1
	// SessionAdvisory is a detected cycle through a session-level
	// advisory lock: the victim keeps the lock after the error and after
	// ROLLBACK, so the other side stays blocked until the application
	// unlocks or disconnects.
	SessionAdvisory
	// CrossConnection is a cycle with a wait that passes through the
	// application (a lock held on one connection while waiting on
	// another): the server cannot see it and it hangs until a timeout.
	CrossConnection
)

// Cycle is a set of code paths that can deadlock: Steps[i] holds
// Steps[i].Held while waiting for Steps[i].Wanted, which
// Steps[(i+1)%n] holds. A cycle of one step is an application
// self-deadlock: a path waits, on a second connection, for a lock its
// first connection holds.
type Cycle struct {
	Steps    []*Edge
	Severity Severity
	// Breaker is the index of the step that goes against the order most
	// other paths agree on, or -1 when no order has a majority.
	Breaker int
	// Agree counts, per step, the distinct functions that take the two
	// locks of that step in that order.
	Agree []int
}

// Classes returns the cycle's lock classes in order, starting with
// Steps[0].Held.
func (c *Cycle) Classes() []string {
	out := make([]string, len(c.Steps))
	for i, s := range c.Steps {
		out[i] = s.Held.Class
	}
	return out
}

// Key identifies the cycle independently of where it is reported: its
// classes, rotated so that the smallest comes first.
func (c *Cycle) Key() string {
	return strings.Join(canonicalRotation(c.Classes()), " -> ")
}

// Graph is a lock-order graph.
type Graph struct {
	edges []*Edge
	out   map[string][]*Edge // by Held.Class
}

// New returns the graph of the given edges. Edges whose request never waits
// are left out: they cannot close a cycle.
func New(edges []*Edge) *Graph {
	g := &Graph{out: map[string][]*Edge{}}
	for _, e := range Dedupe(slices.Clone(edges)) {
		if !e.Wanted.Waits {
			continue
		}
		g.edges = append(g.edges, e)
		g.out[e.Held.Class] = append(g.out[e.Held.Class], e)
	}
	return g
}

// Edges returns the graph's edges, sorted.
func (g *Graph) Edges() []*Edge { return g.edges }

// Cycles returns every elementary cycle of at most maxLen lock classes whose
// consecutive steps really conflict, one per set of classes, most severe
// first, then by key. A step's request must conflict with the next step's
// held mode on the same class.
func (g *Graph) Cycles(maxLen int) []*Cycle {
	var out []*Cycle
	seen := map[string]bool{}
	// Application self-deadlocks: one path, two connections, one object.
	for _, e := range g.edges {
		if e.CrossConn && Conflicts(e.Held, e.Wanted) {
			c := &Cycle{Steps: []*Edge{e}, Severity: CrossConnection, Breaker: -1, Agree: []int{1}}
			if k := "self|" + e.Held.Class + "|" + e.Func; !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	// Lock upgrades: one path run twice at once.
	for _, e := range g.edges {
		if e.IsUpgrade() {
			c := &Cycle{Steps: []*Edge{e}, Severity: Detected, Breaker: -1, Agree: []int{1}}
			if k := "upgrade|" + e.Held.Class + "|" + e.Func; !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	classes := make([]string, 0, len(g.out))
	for c := range g.out {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	index := map[string]int{}
	for i, c := range classes {
		index[c] = i
	}
	for si, start := range classes {
		path := []string{start}
		onPath := map[string]bool{start: true}
		var walk func(cur string)
		walk = func(cur string) {
			for _, next := range g.successors(cur) {
				if next == start && len(path) >= 2 {
					g.emit(path, seen, &out)
					continue
				}
				// Only classes after start, so each cycle is found once,
				// from its smallest class.
				if onPath[next] || index[next] <= si || len(path) >= maxLen {
					continue
				}
				onPath[next] = true
				path = append(path, next)
				walk(next)
				path = path[:len(path)-1]
				delete(onPath, next)
			}
		}
		walk(start)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity > out[j].Severity
		}
		return out[i].Key() < out[j].Key()
	})
	return out
}

// successors returns the distinct classes cur has edges to, sorted.
func (g *Graph) successors(cur string) []string {
	var next []string
	for _, e := range g.out[cur] {
		if e.Wanted.Class != cur {
			next = append(next, e.Wanted.Class)
		}
	}
	slices.Sort(next)
	return slices.Compact(next)
}

// emit picks one witness edge per step of the class cycle path such that
// consecutive steps conflict, and records the cycle.
func (g *Graph) emit(path []string, seen map[string]bool, out *[]*Cycle) {
	key := strings.Join(path, " -> ")
	if seen[key] {
		return
	}
	n := len(path)
	cands := make([][]*Edge, n)
	for i := range path {
		to := path[(i+1)%n]
		for _, e := range g.out[path[i]] {
			if e.Wanted.Class == to {
				cands[i] = append(cands[i], e)
			}
		}
	}
	steps := make([]*Edge, n)
	var pick func(i int) bool
	pick = func(i int) bool {
		if i == n {
			return Conflicts(steps[0].Held, steps[n-1].Wanted)
		}
		for _, e := range preferOtherFuncs(cands[i], steps[:i]) {
			if i > 0 && !Conflicts(e.Held, steps[i-1].Wanted) {
				continue
			}
			steps[i] = e
			if pick(i + 1) {
				return true
			}
		}
		return false
	}
	if !pick(0) {
		return
	}
	seen[key] = true
	c := &Cycle{Steps: slices.Clone(steps), Severity: Detected, Breaker: -1}
	for _, s := range c.Steps {
		switch {
		case s.CrossConn:
			c.Severity = CrossConnection
		case s.Held.Session && c.Severity < SessionAdvisory:
			c.Severity = SessionAdvisory
		}
		if s.Wanted.Session && c.Severity < SessionAdvisory {
			c.Severity = SessionAdvisory
		}
	}
	c.Agree = make([]int, n)
	for i := range path {
		funcs := map[string]bool{}
		for _, e := range cands[i] {
			funcs[e.Func] = true
		}
		c.Agree[i] = len(funcs)
	}
	// The breaker is the single step with the fewest supporters, when
	// every other step has more.
	minI, minV, tie := -1, 0, false
	for i, v := range c.Agree {
		switch {
		case minI < 0 || v < minV:
			minI, minV, tie = i, v, false
		case v == minV:
			tie = true
		}
	}
	if !tie {
		c.Breaker = minI
	}
	*out = append(*out, c)
}

// preferOtherFuncs orders candidates so that witnesses from functions not yet
// used in the cycle come first: a report naming two functions is easier to
// act on than one that names the same function twice.
func preferOtherFuncs(cands []*Edge, chosen []*Edge) []*Edge {
	used := map[string]bool{}
	for _, e := range chosen {
		used[e.Func] = true
	}
	out := make([]*Edge, 0, len(cands))
	for _, e := range cands {
		if !used[e.Func] {
			out = append(out, e)
		}
	}
	for _, e := range cands {
		if used[e.Func] {
			out = append(out, e)
		}
	}
	return out
}

func canonicalRotation(s []string) []string {
	if len(s) == 0 {
		return s
	}
	min := 0
	for i := range s {
		if s[i] < s[min] {
			min = i
		}
	}
	return append(slices.Clone(s[min:]), s[:min]...)
}
