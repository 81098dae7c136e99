package lockgraph

import (
	"slices"
)

// The cycle search finds every elementary cycle; a report per cycle would
// bury one mistake under all the cycles it closes. One path that takes two
// locks against the order many other paths keep closes a cycle with each of
// them. The mistake is that path: the edge of the lock-order graph that
// goes against the order the rest of the program keeps. This file finds
// that order (an approximate minimum feedback arc set, weighted by how many
// functions support each edge) and names, for every cycle, the step it is
// grouped by: one report per such step.

// classOrder ranks the classes of the graph in the order the program
// mostly keeps: a heuristic minimum feedback arc set (Eades, Lin and
// Smyth's greedy ordering) over the class graph, each edge weighted by the
// distinct functions that take its two classes in that order. Edges that
// go backwards in the ranking are the ones that break the order.
func (g *Graph) classOrder() map[Class]int {
	out := map[Class]map[Class]int{}
	in := map[Class]map[Class]int{}
	outDeg, inDeg := map[Class]int{}, map[Class]int{}
	live := map[Class]bool{}
	for p, w := range g.pairWeights() {
		if p[0] == p[1] {
			continue
		}
		if out[p[0]] == nil {
			out[p[0]] = map[Class]int{}
		}
		if in[p[1]] == nil {
			in[p[1]] = map[Class]int{}
		}
		out[p[0]][p[1]] += w
		in[p[1]][p[0]] += w
		outDeg[p[0]] += w
		inDeg[p[1]] += w
		live[p[0]], live[p[1]] = true, true
	}
	left := make([]Class, 0, len(live))
	for n := range live {
		left = append(left, n)
	}
	// Sorted, so that ties are broken the same way in every run.
	slices.SortFunc(left, CompareClasses)
	remove := func(n Class) {
		delete(live, n)
		for m, w := range out[n] {
			inDeg[m] -= w
		}
		for m, w := range in[n] {
			outDeg[m] -= w
		}
	}
	var head, tail []Class
	for len(live) > 0 {
		// Sinks go last and sources first, as long as there are any;
		// then the class whose edges point forward the most.
		progress := true
		for progress {
			progress = false
			for _, n := range left {
				if !live[n] {
					continue
				}
				switch {
				case outDeg[n] == 0:
					tail = append(tail, n)
					remove(n)
					progress = true
				case inDeg[n] == 0:
					head = append(head, n)
					remove(n)
					progress = true
				}
			}
		}
		left = slices.DeleteFunc(left, func(n Class) bool { return !live[n] })
		if len(left) == 0 {
			break
		}
		best := left[0]
		for _, n := range left[1:] {
			if outDeg[n]-inDeg[n] > outDeg[best]-inDeg[best] {
				best = n
			}
		}
		head = append(head, best)
		remove(best)
	}
	rank := make(map[Class]int, len(head)+len(tail))
	for i, n := range head {
		rank[n] = i
	}
	for i, n := range tail {
		rank[n] = len(head) + len(tail) - 1 - i
	}
	return rank
}

// pairWeights counts, per ordered pair of classes, the distinct functions
// that hold the first while waiting for the second.
func (g *Graph) pairWeights() map[[2]Class]int {
	funcs := map[[2]Class]map[string]bool{}
	for _, e := range g.edges {
		k := [2]Class{e.Held.Class, e.Wanted.Class}
		if funcs[k] == nil {
			funcs[k] = map[string]bool{}
		}
		funcs[k][e.Func] = true
	}
	out := make(map[[2]Class]int, len(funcs))
	for k, fs := range funcs {
		out[k] = len(fs)
	}
	return out
}

// groupStep returns the step a cycle is reported by: its breaker when it
// has one, else the step that goes against the program's order (rank): of
// several, the one fewest functions take. A cycle of one step is its own.
func groupStep(c *Cycle, rank map[Class]int, weight map[[2]Class]int) int {
	if c.Breaker >= 0 || len(c.Steps) < 2 {
		return max(c.Breaker, 0)
	}
	best := -1
	for i, s := range c.Steps {
		if rank[s.Held.Class] <= rank[s.Wanted.Class] {
			continue // keeps the order
		}
		w := weight[[2]Class{s.Held.Class, s.Wanted.Class}]
		if best < 0 || w < weight[[2]Class{c.Steps[best].Held.Class, c.Steps[best].Wanted.Class}] {
			best = i
		}
	}
	return max(best, 0)
}

// groupKey identifies the path a cycle is reported by: the function and the
// two locks of its group step.
func (c *Cycle) groupKey() string {
	s := c.Steps[c.Group]
	return s.Func + "|" + s.Held.Class.String() + "|" + s.Wanted.Class.String()
}

// GroupStep returns the step the cycle is reported by (see Group).
func (c *Cycle) GroupStep() *Edge { return c.Steps[c.Group] }

// otherFuncs lists the functions of the cycle's steps other than its group
// step's, and of the paths that follow the order its breaker breaks.
func (c *Cycle) otherFuncs() []string {
	group := c.Steps[c.Group].Func
	var out []string
	for _, s := range c.Steps {
		if s.Func != group {
			out = append(out, s.Func)
		}
	}
	for _, f := range c.FollowerFuncs {
		if f != group {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OtherFuncs returns the distinct functions on the other side of the
// reported path, over every cycle folded into this one, sorted.
func (c *Cycle) OtherFuncs() []string { return c.otherFuncs() }
