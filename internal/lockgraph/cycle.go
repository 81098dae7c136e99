package lockgraph

import (
	"go/token"
	"slices"
	"sort"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
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
	// Followers counts the distinct functions on the other steps: the
	// paths whose order the breaker goes against. FollowerFuncs names
	// them, sorted.
	Followers     int
	FollowerFuncs []string
	// Breakers names, sorted, the other functions that take the
	// breaker's two locks in the breaker's order (the same step of the
	// cycle, another witness): they go against the same order, and each
	// must change too.
	Breakers []string
	// Group is the index of the step the cycle is reported by: its
	// breaker, or, without a majority among its own paths, the step that
	// goes against the order the whole program keeps. Cycles with the same
	// group step (function and locks) are one report.
	Group int
	// Folded counts the further cycles reported with this one; Also
	// names the first of them.
	Folded int
	// Also lists further cycles reported with this one (see Cycles),
	// each as its classes in canonical rotation (see Classes), at most
	// maxAlso of them.
	Also [][]Class
	// MissingGate is a gate that every path but the breaker holds in front
	// of its pair: taking it there too breaks the cycle.
	MissingGate *Lock
	// Guards are the session advisory locks taken on a pool that a path
	// of the cycle runs under (see guards): PostgreSQL breaks the cycle
	// by aborting a transaction, but such a lock survives it.
	Guards []Guard
}

// Guard is a session advisory lock, taken on a connection pool, held by a
// function while a step of a cycle runs on another connection.
type Guard struct {
	// Step is the index of the step it guards.
	Step int
	// Func holds the lock; Path leads from Func to the statement that
	// took it.
	Func string
	Lock Lock
	Path []Frame
}

// Anchor returns the step a report points at: the breaker's, or else the
// first.
func (c *Cycle) Anchor() *Edge {
	if c.Breaker >= 0 && c.Breaker < len(c.Steps) {
		return c.Steps[c.Breaker]
	}
	return c.Steps[0]
}

// Funcs returns the distinct functions of the cycle's witnesses, sorted.
func (c *Cycle) Funcs() []string {
	out := make([]string, 0, len(c.Steps))
	for _, s := range c.Steps {
		out = append(out, s.Func)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Classes returns the cycle's lock classes in order, starting with
// Steps[0].Held.
func (c *Cycle) Classes() []Class {
	out := make([]Class, len(c.Steps))
	for i, s := range c.Steps {
		out[i] = s.Held.Class
	}
	return out
}

// Key identifies the cycle independently of where it is reported: its
// classes, rotated so that the smallest comes first.
func (c *Cycle) Key() string {
	return classesKey(canonicalRotation(c.Classes()))
}

// classesKey joins the text forms of classes with " -> ".
func classesKey(classes []Class) string {
	var b strings.Builder
	for i, c := range classes {
		if i > 0 {
			b.WriteString(" -> ")
		}
		b.WriteString(c.String())
	}
	return b.String()
}

// Graph is a lock-order graph.
type Graph struct {
	edges  []*Edge
	out    map[Class][]*Edge         // by Held.Class
	pair   map[[2]Class][]*Edge      // by Held.Class and Wanted.Class, in the order of out
	succ   map[Class][]Class         // distinct successor classes, sorted
	byFunc map[string]map[Class]bool // classes each function locks, built on demand
	pred   map[Class][]Class         // distinct predecessor classes
	// Truncated is set when Cycles stopped early, having searched as
	// much as its budget allows: long cycles may be missing.
	Truncated bool
	// steps counts the search's work against budget, found the cycles
	// kept against maxCycles.
	steps, budget, found, maxCycles int
}

// The cycle search is bounded in time and memory by the size of the graph:
// the number of elementary cycles grows exponentially with their length, and
// functions calling each other inside transactions can put an edge between
// almost every two tables. The steps of the search for each length (edges
// followed, predecessors visited, candidate witnesses listed) may number
// minSearch plus searchPerEdge per edge, and it keeps at most maxFound plus
// foundPerClass per lock class cycles before grouping; past either bound it
// stops and sets Truncated.
const (
	minSearch     = 20_000_000
	searchPerEdge = 2000
	maxFound      = 20_000
	foundPerClass = 20
)

// New returns the graph of the given edges. Edges whose request never waits
// are left out: they cannot close a cycle.
func New(edges []*Edge) *Graph {
	g := &Graph{out: map[Class][]*Edge{}, pair: map[[2]Class][]*Edge{}}
	for _, e := range Dedupe(slices.Clone(edges)) {
		if !e.Wanted.Waits {
			continue
		}
		g.edges = append(g.edges, e)
		g.out[e.Held.Class] = append(g.out[e.Held.Class], e)
		k := [2]Class{e.Held.Class, e.Wanted.Class}
		g.pair[k] = append(g.pair[k], e)
	}
	return g
}

// Edges returns the graph's edges, sorted.
func (g *Graph) Edges() []*Edge { return g.edges }

// Cycles returns the elementary cycles of at most maxLen lock classes whose
// consecutive steps really conflict (a step's request must conflict with the
// next step's held mode on the same class), most severe first, then by key.
//
// One long function that takes many locks can close hundreds of cycles with
// the same few functions; reporting each would bury the finding. So cycles
// are grouped by the functions that witness them: a cycle is reported only
// when no shorter or equally short, at least as severe cycle has the same
// functions, or a subset of them of two functions or more, or the same
// anchor (see Anchor). The others are listed in the reported cycle's Also.
func (g *Graph) Cycles(maxLen int) []*Cycle {
	var out []*Cycle
	seen := map[string]bool{}
	// Application self-deadlocks: one path, two connections, one object.
	for _, e := range g.edges {
		if e.CrossConn && Conflicts(e.Held, e.Wanted) {
			c := &Cycle{Steps: []*Edge{e}, Severity: CrossConnection, Breaker: -1, Agree: []int{1}}
			if k := "self|" + e.Held.Class.String() + "|" + e.Func; !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	// Lock upgrades: one path run twice at once.
	for _, e := range g.edges {
		if e.IsUpgrade() && !Gated([]*Edge{e}) {
			c := &Cycle{Steps: []*Edge{e}, Severity: Detected, Breaker: -1, Agree: []int{1}}
			if k := "upgrade|" + e.Held.Class.String() + "|" + e.Func; !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	classes := make([]Class, 0, len(g.out))
	for c := range g.out {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, CompareClasses)
	index := map[Class]int{}
	for i, c := range classes {
		index[c] = i
	}
	g.budget = minSearch + searchPerEdge*len(g.edges)
	g.found, g.maxCycles = len(out), maxFound+foundPerClass*len(classes)
	// Iterative deepening: all cycles of each length before any longer
	// one, so that a budget spent on long cycles never costs a short one.
	for length := 2; length <= maxLen && !g.Truncated; length++ {
		g.steps = 0
		g.searchLength(classes, index, length, seen, &out)
	}
	rank, weight := g.classOrder(), g.pairWeights()
	guards := g.guardIndex()
	for _, c := range out {
		c.Group = groupStep(c, rank, weight)
		c.guard(guards)
	}
	out = group(out)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity > out[j].Severity
		}
		return out[i].Key() < out[j].Key()
	})
	return out
}

// searchLength finds the cycles of exactly length classes, each from its
// smallest class, within the search's budget.
//
// From each start it first measures, walking predecessors back from the
// start through larger classes only, how many steps each class is from
// closing the cycle; the walk forward then enters only classes that can
// still close it within length. A graph whose edges agree on one order
// (most of a program's) then costs a walk of each class's predecessors
// and no forward search at all.
func (g *Graph) searchLength(classes []Class, index map[Class]int, length int, seen map[string]bool, out *[]*Cycle) {
	dist := map[Class]int{}
	for si, start := range classes {
		clear(dist)
		if !g.distances(start, si, index, length, dist) {
			return
		}
		if len(dist) == 0 {
			continue
		}
		path := []Class{start}
		onPath := map[Class]bool{start: true}
		var walk func(cur Class)
		walk = func(cur Class) {
			for _, next := range g.successors(cur) {
				if !g.spend(1) {
					return
				}
				if next == start && len(path) == length {
					g.emit(path, seen, out)
					if g.found >= g.maxCycles {
						g.Truncated = true
						return
					}
					continue
				}
				// Only classes after start, so each cycle is found once,
				// from its smallest class, and only those from which the
				// start is near enough.
				d, ok := dist[next]
				if !ok || onPath[next] || len(path)+d > length {
					continue
				}
				onPath[next] = true
				path = append(path, next)
				walk(next)
				path = path[:len(path)-1]
				delete(onPath, next)
				if g.Truncated {
					return
				}
			}
		}
		walk(start)
		if g.Truncated {
			return
		}
	}
}

// distances fills dist with the classes after start (in index order) from
// which start can be reached in fewer than length steps, and the number of
// steps. It reports false when the budget ran out.
func (g *Graph) distances(start Class, si int, index map[Class]int, length int, dist map[Class]int) bool {
	frontier := []Class{start}
	for d := 1; d < length && len(frontier) > 0; d++ {
		var next []Class
		for _, c := range frontier {
			for _, p := range g.predecessors(c) {
				if !g.spend(1) {
					return false
				}
				if _, ok := dist[p]; ok || index[p] <= si {
					continue
				}
				dist[p] = d
				next = append(next, p)
			}
		}
		frontier = next
	}
	return true
}

// spend charges n steps of work to the search's budget, and reports
// whether there was enough left.
func (g *Graph) spend(n int) bool {
	g.steps += n
	if g.steps > g.budget {
		g.Truncated = true
		return false
	}
	return true
}

// predecessors returns the distinct classes with edges to cur.
func (g *Graph) predecessors(cur Class) []Class {
	if g.pred == nil {
		g.pred = map[Class][]Class{}
		for from := range g.out {
			for _, to := range g.successors(from) {
				g.pred[to] = append(g.pred[to], from)
			}
		}
		for _, p := range g.pred {
			slices.SortFunc(p, CompareClasses)
		}
	}
	return g.pred[cur]
}

// maxAlso bounds the further cycles named in one report.
const maxAlso = 5

// group folds cycles of two steps or more into the first reported cycle
// whose functions they contain (see Cycles). One-step cycles (upgrades and
// application self-deadlocks) are each reported.
func group(cycles []*Cycle) []*Cycle {
	sort.SliceStable(cycles, func(i, j int) bool {
		a, b := cycles[i], cycles[j]
		if len(a.Steps) != len(b.Steps) {
			return len(a.Steps) < len(b.Steps)
		}
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		return a.Key() < b.Key()
	})
	var kept []*Cycle
	var keptFuncs [][]string
	for _, c := range cycles {
		funcs := c.Funcs()
		folded := false
		if len(c.Steps) > 1 {
			for i, k := range kept {
				if len(k.Steps) < 2 || k.Severity < c.Severity {
					continue
				}
				same := slices.Equal(keptFuncs[i], funcs)
				subset := len(keptFuncs[i]) >= 2 && isSubset(keptFuncs[i], funcs)
				// Two cycles reported at one request would say the same
				// thing twice at one line: changing that request's order
				// is the fix for both.
				ka, ca := k.Anchor(), c.Anchor()
				sameAnchor := ka.Anchor() == ca.Anchor() && ka.Wanted.Class == ca.Wanted.Class
				// One path against the order the others keep closes a
				// cycle with each of them: one mistake, one report.
				sameBreaker := k.groupKey() == c.groupKey()
				if same || subset || sameAnchor || sameBreaker {
					k.fold(c)
					folded = true
					break
				}
			}
		}
		if !folded {
			kept = append(kept, c)
			keptFuncs = append(keptFuncs, funcs)
		}
	}
	return kept
}

// fold records cycle other as reported with c: named in Also (the first
// maxAlso), counted in Folded, and its paths added to c's other side.
func (c *Cycle) fold(other *Cycle) {
	c.Folded++
	if len(c.Also) < maxAlso {
		c.Also = append(c.Also, canonicalRotation(other.Classes()))
	}
	if c.Breaker < 0 {
		return
	}
	breaker := c.Steps[c.Breaker].Func
	if other.Breaker >= 0 {
		// Another function against the order, or the same step's
		// other witnesses, named with this report's breaker.
		for _, f := range append([]string{other.Steps[other.Breaker].Func}, other.Breakers...) {
			if f != breaker && !slices.Contains(c.Breakers, f) && !slices.Contains(c.FollowerFuncs, f) {
				c.Breakers = append(c.Breakers, f)
			}
		}
		slices.Sort(c.Breakers)
	}
	for _, f := range other.otherFuncs() {
		if f != breaker && !slices.Contains(c.FollowerFuncs, f) {
			c.FollowerFuncs = append(c.FollowerFuncs, f)
		}
	}
	slices.Sort(c.FollowerFuncs)
	c.Followers = len(c.FollowerFuncs)
}

// isSubset reports whether every element of the sorted slice a is in the
// sorted slice b.
func isSubset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// touches reports whether function fn takes a lock of class anywhere in
// the graph.
func (g *Graph) touches(fn string, class Class) bool {
	if g.byFunc == nil {
		g.byFunc = map[string]map[Class]bool{}
		for _, e := range g.edges {
			m := g.byFunc[e.Func]
			if m == nil {
				m = map[Class]bool{}
				g.byFunc[e.Func] = m
			}
			m[e.Held.Class], m[e.Wanted.Class] = true, true
			for _, gate := range e.Gates {
				m[gate.Class] = true
			}
		}
	}
	return g.byFunc[fn][class]
}

// successors returns the distinct classes cur has edges to, sorted.
func (g *Graph) successors(cur Class) []Class {
	if next, ok := g.succ[cur]; ok {
		return next
	}
	var next []Class
	for _, e := range g.out[cur] {
		if e.Wanted.Class != cur {
			next = append(next, e.Wanted.Class)
		}
	}
	slices.SortFunc(next, CompareClasses)
	next = slices.Compact(next)
	if g.succ == nil {
		g.succ = map[Class][]Class{}
	}
	g.succ[cur] = next
	return next
}

// emit picks one witness edge per step of the class cycle path such that
// consecutive steps conflict, and records the cycle.
func (g *Graph) emit(path []Class, seen map[string]bool, out *[]*Cycle) {
	key := classesKey(path)
	if seen[key] {
		return
	}
	n := len(path)
	cands := make([][]*Edge, n)
	for i := range path {
		to := path[(i+1)%n]
		// Charged as the scan of every edge out of the class that
		// the index saves, so that the budget, and where a search
		// that runs out of it stops, stay as they were.
		if !g.spend(len(g.out[path[i]])) {
			return
		}
		cands[i] = g.pair[[2]Class{path[i], to}]
	}
	steps := make([]*Edge, n)
	budget := maxPicks
	var pick func(i int) bool
	pick = func(i int) bool {
		if i == n {
			return Conflicts(steps[0].Held, steps[n-1].Wanted) && !Gated(steps)
		}
		for _, e := range preferOtherFuncs(cands[i], steps[:i]) {
			if budget--; budget < 0 {
				return false
			}
			if i > 0 && (!Conflicts(e.Held, steps[i-1].Wanted) || e.InTest() != steps[0].InTest()) {
				// A test's path is never set against production's:
				// tests do not run beside the service.
				continue
			}
			steps[i] = e
			if pick(i + 1) {
				return true
			}
		}
		return false
	}
	// The witnesses tried are bounded by maxPicks per cycle and the cycles
	// by maxCycles: they are not charged to the steps, which bound the
	// walk.
	if !pick(0) {
		return
	}
	seen[key] = true
	g.found++
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
		followers := map[string]bool{}
		for i := range path {
			if i == minI {
				continue
			}
			for _, e := range cands[i] {
				followers[e.Func] = true
			}
		}
		c.Followers = len(followers)
		for f := range followers {
			c.FollowerFuncs = append(c.FollowerFuncs, f)
		}
		slices.Sort(c.FollowerFuncs)
	}
	// A path that holds an explicit strong table lock (LOCK TABLE ...
	// SHARE and up, DDL) against ordinary statements is the one to change:
	// the fix belongs in the maintenance task, not in every hot path.
	if k, ok := strongTableStep(c.Steps); ok {
		c.Breaker = k
		c.Followers = 0
		for i, n := range c.Agree {
			if i != k {
				c.Followers += n
			}
		}
	}
	// A gate all paths but one hold in front of their pair: the one
	// without it is what to change, whatever the majority says.
	if k, gate, ok := missingGate(c.Steps, g.touches); ok {
		c.Breaker, c.MissingGate = k, &gate
	}
	if c.Breaker >= 0 {
		for _, e := range cands[c.Breaker] {
			if e.Func != c.Steps[c.Breaker].Func && !slices.Contains(c.Breakers, e.Func) {
				c.Breakers = append(c.Breakers, e.Func)
			}
		}
		slices.Sort(c.Breakers)
	}
	*out = append(*out, c)
}

// missingGate finds a gate (see Gated) that every step but one holds, and
// that one step: taking the gate there too would serialise the cycle.
//
// Only a lock that reads as a guard is suggested: an advisory lock on a
// known key, or a row lock the breaker's function takes somewhere itself (it
// locks that parent elsewhere). A table lock (putting LOCK TABLE on a hot
// path is no fix), a key known only at run time, or a lock of the cycle
// itself is no advice.
func missingGate(steps []*Edge, touches func(fn string, class Class) bool) (int, Lock, bool) {
	if len(steps) < 2 {
		return 0, Lock{}, false
	}
	for k := range steps {
		others := make([]*Edge, 0, len(steps)-1)
		others = append(others, steps[:k]...)
		others = append(others, steps[k+1:]...)
		for _, g := range others[0].Gates {
			if !lockmodel.ModesConflict(g.Mode, g.Mode) || !gatesAll(others, g) {
				continue
			}
			if slices.ContainsFunc(steps[k].Gates, func(h Lock) bool { return h.Class == g.Class }) {
				continue
			}
			if inCycle(steps, g.Class) {
				continue // "take X first" where X is one of the pair
			}
			if g.Class.Kind == AdvisoryKey && !g.Class.RunTime() && !g.Session ||
				g.Class.IsRow() && touches(steps[k].Func, g.Class) {
				return k, g, true
			}
		}
	}
	return 0, Lock{}, false
}

// strongTableStep returns the only step that holds a table lock in SHARE
// mode or stronger, if exactly one does.
func strongTableStep(steps []*Edge) (int, bool) {
	found := -1
	for i, s := range steps {
		if s.Held.Class.IsTable() && s.Held.Mode >= lockmodel.Share {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0 && len(steps) > 1
}

// inCycle reports whether class is one of the cycle's lock classes.
func inCycle(steps []*Edge, class Class) bool {
	for _, s := range steps {
		if s.Held.Class == class || s.Wanted.Class == class {
			return true
		}
	}
	return false
}

// Gated reports whether the paths of a cycle cannot all be in their
// critical sections at once, so that PostgreSQL serialises them before
// they can deadlock: two of its steps each surely hold, from before their
// first lock until their second is requested, locks that conflict with each
// other (a gate that every path takes first, such as an advisory lock or a
// parent row; or TRUNCATE's ACCESS EXCLUSIVE on one path against the ROW
// SHARE of a SELECT ... FOR UPDATE on the same table on the other). A
// deadlock needs every step to hold its first lock while it waits: one pair
// that excludes each other is enough. For one step (the same path run
// twice), a gate that conflicts with itself. An advisory key unknown before
// run time counts as one lock when the same SQL site takes it on every
// path: the usual "lock the tenant first" guard.
//
// A keyed gate (Edge.Keyed) counts between a step and the next, which holds
// the rows the step waits for: both steps chose those rows by the same
// values, and so locked the same parent rows first.
func Gated(steps []*Edge) bool {
	if len(steps) == 1 {
		return slices.ContainsFunc(steps[0].Gates, func(g Lock) bool { return lockmodel.ModesConflict(g.Mode, g.Mode) })
	}
	for i, a := range steps {
		for _, b := range steps[i+1:] {
			if excludes(a.Gates, b.Gates) {
				return true
			}
		}
		if keyedExcludes(a.Keyed, steps[(i+1)%len(steps)].Keyed) {
			return true
		}
	}
	return false
}

// keyedExcludes reports whether a step holding keyed gates a waits for rows
// that the next step, holding keyed gates b, holds under a parent lock of
// the same shape and the same values: the two parent locks are of the same
// rows, and conflict.
func keyedExcludes(a, b []KeyedGate) bool {
	for _, g := range a {
		for _, h := range b {
			if g.Wanted != "" && g.Lock.Class == h.Lock.Class && g.Shape == h.Shape && g.Wanted == h.Held &&
				lockmodel.ModesConflict(g.Lock.Mode, h.Lock.Mode) {
				return true
			}
		}
	}
	return false
}

// excludes reports whether a lock of a conflicts with a lock of b: two paths
// holding them cannot run at once.
func excludes(a, b []Lock) bool {
	for _, g := range a {
		for _, h := range b {
			if g.Class == h.Class && lockmodel.ModesConflict(g.Mode, h.Mode) {
				return true
			}
		}
	}
	return false
}

// gatesAll reports whether every step holds a gate on g's class in a mode
// that conflicts with every other step's (and, for one step, with itself).
func gatesAll(steps []*Edge, g Lock) bool {
	modes := make([]lockmodel.Mode, len(steps))
	for i, s := range steps {
		found := false
		for _, h := range s.Gates {
			if h.Class == g.Class {
				modes[i], found = h.Mode, true
				break
			}
		}
		if !found {
			return false
		}
	}
	for i := range modes {
		for j := range modes {
			if (i != j || len(modes) == 1) && !lockmodel.ModesConflict(modes[i], modes[j]) {
				return false
			}
		}
	}
	return true
}

// maxPicks bounds the witness combinations tried for one cycle of classes,
// so that functions with many edges cannot make the search exponential.
const maxPicks = 10000

// preferOtherFuncs orders candidates: first those that make the cycle more
// severe (a wait across connections, a session advisory lock), so that the
// report does not understate the danger; then witnesses from functions not
// yet used in the cycle, since a report naming two functions is easier to
// act on than one that names the same function twice; then the strongest
// held lock.
//
// Each candidate's rank is computed once, before the stable sort: a lock
// pair can have thousands of witnesses, and the search orders them again for
// every step it tries.
func preferOtherFuncs(cands []*Edge, chosen []*Edge) []*Edge {
	used := make(map[string]bool, len(chosen))
	for _, e := range chosen {
		used[e.Func] = true
	}
	type ranked struct {
		rank int
		e    *Edge
	}
	// The rank orders more severe first, then functions not used yet,
	// then the stronger held mode.
	const modes = 1 << 8 // lockmodel.Mode is a uint8
	rs := make([]ranked, len(cands))
	for i, e := range cands {
		r := (int(CrossConnection)-edgeSeverity(e))*2*modes + modes - 1 - int(e.Held.Mode)
		if used[e.Func] {
			r += modes
		}
		rs[i] = ranked{r, e}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return a.rank - b.rank })
	out := make([]*Edge, len(rs))
	for i, r := range rs {
		out[i] = r.e
	}
	return out
}

// edgeSeverity is how bad a cycle through e is at least.
func edgeSeverity(e *Edge) int {
	switch {
	case e.CrossConn:
		return int(CrossConnection)
	case e.Held.Session || e.Wanted.Session:
		return int(SessionAdvisory)
	}
	return int(Detected)
}

func canonicalRotation(s []Class) []Class {
	if len(s) == 0 {
		return s
	}
	min := 0
	for i := range s {
		if CompareClasses(s[i], s[min]) < 0 {
			min = i
		}
	}
	return append(slices.Clone(s[min:]), s[:min]...)
}

// guardKey identifies the request a guard edge waits for: its class and
// the statement that requests it.
type guardKey struct {
	class Class
	pos   token.Position
}

// guardIndex indexes the edges from a session advisory lock taken on a pool
// to a request on another connection, by that request.
func (g *Graph) guardIndex() map[guardKey]*Edge {
	out := map[guardKey]*Edge{}
	for _, e := range g.edges {
		if !e.Held.Session || !e.Held.Pooled || !e.Held.Class.IsAdvisory() || !e.CrossConn || len(e.WantedPath) == 0 {
			continue
		}
		// The function nearest to the statements: the one that takes
		// the lock itself rather than its callers.
		k := guardKey{e.Wanted.Class, e.WantedPath[len(e.WantedPath)-1].Pos}
		if old, ok := out[k]; !ok || len(e.HeldPath) < len(old.HeldPath) ||
			len(e.HeldPath) == len(old.HeldPath) && e.Func < old.Func {
			out[k] = e
		}
	}
	return out
}

// guard records the guards of the cycle's steps: a step whose first request
// is made, on another connection, while a session advisory lock taken on a
// pool is held (the seed's batch job: pg_advisory_lock(account) on the
// pool, then a transaction). PostgreSQL aborts one transaction of the cycle
// with 40P01; if it is the guarded one, its function returns an error with
// the session lock still held on a pooled connection that nothing unlocks,
// and the next run for the same key waits for it forever: a detected
// deadlock becomes a hang.
func (c *Cycle) guard(index map[guardKey]*Edge) {
	if len(c.Steps) < 2 || len(index) == 0 {
		return
	}
	for i, s := range c.Steps {
		if len(s.HeldPath) == 0 {
			continue
		}
		e, ok := index[guardKey{s.Held.Class, s.HeldPath[len(s.HeldPath)-1].Pos}]
		if !ok {
			continue
		}
		c.Guards = append(c.Guards, Guard{Step: i, Func: e.Func, Lock: e.Held, Path: e.HeldPath})
		if c.Severity < SessionAdvisory {
			c.Severity = SessionAdvisory
		}
	}
}
