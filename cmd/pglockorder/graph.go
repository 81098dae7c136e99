package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// graphEdge is one arrow of the drawn graph: every path that holds From
// while waiting for To.
type graphEdge struct {
	from, to lockgraph.Class
	labels   []string
	inCycle  bool
}

// drawing is the lock-order graph prepared for drawing: lock classes as
// nodes in a stable order, arrows between them, and what lies on a
// reported cycle.
type drawing struct {
	nodes      []lockgraph.Class
	cycleNodes map[lockgraph.Class]bool
	edges      []*graphEdge
}

func newDrawing(g *lockgraph.Graph, cycles []*lockgraph.Cycle) *drawing {
	onCycle := map[*lockgraph.Edge]bool{}
	d := &drawing{cycleNodes: map[lockgraph.Class]bool{}}
	for _, c := range cycles {
		for _, s := range c.Steps {
			onCycle[s] = true
			d.cycleNodes[s.Held.Class] = true
			d.cycleNodes[s.Wanted.Class] = true
		}
	}
	byPair := map[[2]lockgraph.Class]*graphEdge{}
	nodes := map[lockgraph.Class]bool{}
	for _, e := range g.Edges() {
		if !analyzer.Ordered(e) && !onCycle[e] {
			continue
		}
		k := [2]lockgraph.Class{e.Held.Class, e.Wanted.Class}
		ge := byPair[k]
		if ge == nil {
			ge = &graphEdge{from: k[0], to: k[1]}
			byPair[k] = ge
			d.edges = append(d.edges, ge)
		}
		label := fmt.Sprintf("%s: holds %s, waits for %s", e.Func, e.Held.Mode, e.Wanted.Mode)
		if e.CrossConn {
			label += " on another connection"
		}
		if !slices.Contains(ge.labels, label) {
			ge.labels = append(ge.labels, label)
		}
		ge.inCycle = ge.inCycle || onCycle[e]
		nodes[k[0]], nodes[k[1]] = true, true
	}
	for n := range nodes {
		d.nodes = append(d.nodes, n)
	}
	slices.SortFunc(d.nodes, lockgraph.CompareClasses)
	slices.SortFunc(d.edges, func(a, b *graphEdge) int {
		return cmp.Or(lockgraph.CompareClasses(a.from, b.from), lockgraph.CompareClasses(a.to, b.to))
	})
	return d
}

func (d *drawing) id(class lockgraph.Class) string {
	return fmt.Sprintf("n%d", slices.Index(d.nodes, class))
}

// writeGraph prints the lock-order graph in Mermaid or Graphviz DOT: locks
// as nodes, an arrow from a held lock to the lock requested while holding
// it, labelled with the functions that do so, and the reported cycles in
// red, so a pull-request comment or a job summary shows the deadlock. The
// implicit table locks of plain DML are left out (see analyzer.Ordered)
// unless a cycle passes through them.
func writeGraph(w io.Writer, kind string, g *lockgraph.Graph, cycles []*lockgraph.Cycle) error {
	d := newDrawing(g, cycles)
	var b strings.Builder
	if kind == "dot" {
		d.dot(&b)
	} else {
		d.mermaid(&b)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the graph: %w", err)
	}
	return nil
}

func (d *drawing) dot(b *strings.Builder) {
	b.WriteString("digraph pglockorder {\n")
	b.WriteString("\trankdir=LR;\n")
	b.WriteString("\tnode [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	b.WriteString("\tedge [fontname=\"Helvetica\", fontsize=10];\n")
	for _, n := range d.nodes {
		attrs := "label=" + dotQuote(n.Describe())
		if d.cycleNodes[n] {
			attrs += ", color=red, penwidth=2"
		}
		fmt.Fprintf(b, "\t%s [%s];\n", d.id(n), attrs)
	}
	for _, e := range d.edges {
		attrs := "label=" + dotQuote(strings.Join(e.labels, "\n"))
		if e.inCycle {
			attrs += ", color=red, fontcolor=red, penwidth=2"
		}
		fmt.Fprintf(b, "\t%s -> %s [%s];\n", d.id(e.from), d.id(e.to), attrs)
	}
	b.WriteString("}\n")
}

// dotQuote quotes a DOT string; a newline becomes a centred line break.
func dotQuote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
	return `"` + s + `"`
}

func (d *drawing) mermaid(b *strings.Builder) {
	b.WriteString("flowchart LR\n")
	for _, n := range d.nodes {
		fmt.Fprintf(b, "  %s[%s]\n", d.id(n), mermaidQuote(n.Describe()))
	}
	var red []string
	for i, e := range d.edges {
		fmt.Fprintf(b, "  %s -->|%s| %s\n", d.id(e.from), mermaidQuote(strings.Join(e.labels, "<br>")), d.id(e.to))
		if e.inCycle {
			red = append(red, strconv.Itoa(i))
		}
	}
	if len(red) > 0 {
		fmt.Fprintf(b, "  linkStyle %s stroke:#d00,stroke-width:3px,color:#d00\n", strings.Join(red, ","))
	}
	var cyc []string
	for _, n := range d.nodes {
		if d.cycleNodes[n] {
			cyc = append(cyc, d.id(n))
		}
	}
	if len(cyc) > 0 {
		b.WriteString("  classDef cycle stroke:#d00,stroke-width:3px\n")
		fmt.Fprintf(b, "  class %s cycle\n", strings.Join(cyc, ","))
	}
}

// mermaidQuote quotes a Mermaid label; quotes inside become entities.
func mermaidQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, "#quot;") + `"`
}

// writeSuggestedOrder prints a lock order consistent with the code, in the
// configuration file's format, to start a declared order from: a
// topological order of the lock-order graph over the names the
// configuration uses (tables, advisory keys). When the code takes some
// locks in both orders, no order exists: it prints those edges instead.
func writeSuggestedOrder(w io.Writer, g *lockgraph.Graph, rel func(string) string) error {
	succ := map[string]map[string]bool{}
	witness := map[[2]string][]string{}
	names := map[string]bool{}
	for _, e := range g.Edges() {
		from, to := analyzer.OrderName(e.Held.Class), analyzer.OrderName(e.Wanted.Class)
		if from == "" || to == "" || !analyzer.Ordered(e) {
			continue
		}
		names[from], names[to] = true, true
		if from == to {
			continue
		}
		if succ[from] == nil {
			succ[from] = map[string]bool{}
		}
		succ[from][to] = true
		k := [2]string{from, to}
		if w := e.Func + " (" + rel(e.Anchor().String()) + ")"; !slices.Contains(witness[k], w) {
			witness[k] = append(witness[k], w)
		}
	}
	order, stuck := topoSort(names, succ)
	var b strings.Builder
	if len(stuck) == 0 {
		b.WriteString("# A lock order consistent with the code (pglockorder -suggest-order):\n")
		b.WriteString("# save as .pglockorder.yaml at the module root to have every driver keep it.\n")
		b.WriteString("order:\n")
		for _, n := range order {
			fmt.Fprintf(&b, "  - %s\n", yamlScalar(n))
		}
	} else {
		b.WriteString("# No lock order is consistent with the code: these locks are taken in both orders.\n")
		b.WriteString("# Fix the cycles (see the findings), then ask again.\n")
		var pairs [][2]string
		for k := range witness {
			if stuck[k[0]] && stuck[k[1]] {
				pairs = append(pairs, k)
			}
		}
		slices.SortFunc(pairs, func(a, c [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], c[0]+"\x00"+c[1]) })
		for _, k := range pairs {
			fmt.Fprintf(&b, "%s -> %s: %s\n", k[0], k[1], strings.Join(witness[k], ", "))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the order: %w", err)
	}
	return nil
}

// topoSort orders names so that every edge goes forward, taking the
// smallest name first among those free to go (Kahn's algorithm), and
// returns the names left on cycles, if any.
func topoSort(names map[string]bool, succ map[string]map[string]bool) (order []string, stuck map[string]bool) {
	indeg := map[string]int{}
	for n := range names {
		indeg[n] += 0
		for m := range succ[n] {
			indeg[m]++
		}
	}
	var ready []string
	for n, d := range indeg {
		if d == 0 {
			ready = append(ready, n)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		n := ready[0]
		ready = ready[1:]
		order = append(order, n)
		for m := range succ[n] {
			if indeg[m]--; indeg[m] == 0 {
				ready = append(ready, m)
			}
		}
	}
	if len(order) == len(names) {
		return order, nil
	}
	// What is left lies on cycles or behind them; keep only the names on
	// a cycle: those that reach themselves through other leftovers.
	left := map[string]bool{}
	for n, d := range indeg {
		if d > 0 {
			left[n] = true
		}
	}
	stuck = map[string]bool{}
	for n := range left {
		if reaches(n, n, succ, left) {
			stuck[n] = true
		}
	}
	return order, stuck
}

func reaches(from, target string, succ map[string]map[string]bool, within map[string]bool) bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for m := range succ[n] {
			if m == target {
				return true
			}
			if within[m] && !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return false
}

// yamlScalar quotes a name for YAML when it is not a plain word.
func yamlScalar(s string) string {
	for _, r := range s {
		plain := r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !plain {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
