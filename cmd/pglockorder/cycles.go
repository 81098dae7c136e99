package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// The cycle search's result is a function of the graph's edges and the
// maximum length, and of the pglockorder binary: most edits (to code that
// sends no SQL, or that sends the same) leave the edges as they were, and the
// search, the longest phase of a big program's run after an edit (8 to 12 s
// on hatchet's 26,900 edges), need not run again. So its result is kept
// under a digest of the graph's edges, with each cycle's steps named by
// their index among the graph's edges (the edges themselves are the graph's:
// the drawing tells a cycle's edges by identity).

// cyclesDir is the directory of the cycle entries inside the result cache.
const cyclesDir = "cycles"

// maxCycleEntries bounds the cycle entries kept: the least recently used
// beyond it go.
const maxCycleEntries = 16

// storedCycle is a cycle as the cache keeps it: the cycle without its
// steps, and the steps' indexes among the graph's edges.
type storedCycle struct {
	Cycle *lockgraph.Cycle
	Steps []int
}

// storedCycles is the cycle search's result over one graph.
type storedCycles struct {
	Cycles    []storedCycle
	Truncated bool
}

// cycleKey returns the key of the cycle search over g's edges with cycles
// of at most maxLen classes; env names the binary (resultCache.key). It is
// false when the edges cannot be encoded.
func cycleKey(env string, g *lockgraph.Graph, maxLen int) (string, bool) {
	b, ok := edgesDigestInput(g.Edges())
	if !ok || env == "" {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00cycles maxlen=%d\x00", env, maxLen)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), true
}

func (c resultCache) cycleFile(key string) string { return filepath.Join(c.dir, cyclesDir, key) }

// loadCycles returns the cycles stored under key, their steps pointing at
// g's edges, and whether the search stopped early.
func (c resultCache) loadCycles(key string, g *lockgraph.Graph) ([]*lockgraph.Cycle, bool, bool) {
	var s storedCycles
	if !readGob(c.cycleFile(key), &s) {
		return nil, false, false
	}
	edges := g.Edges()
	out := make([]*lockgraph.Cycle, 0, len(s.Cycles))
	for _, sc := range s.Cycles {
		if sc.Cycle == nil || len(sc.Steps) == 0 {
			return nil, false, false
		}
		cy := sc.Cycle
		cy.Steps = make([]*lockgraph.Edge, len(sc.Steps))
		for i, j := range sc.Steps {
			if j < 0 || j >= len(edges) {
				return nil, false, false
			}
			cy.Steps[i] = edges[j]
		}
		out = append(out, cy)
	}
	now := time.Now()
	_ = os.Chtimes(c.cycleFile(key), now, now) // used: pruned last
	return out, s.Truncated, true
}

// storeCycles keeps the cycles found in g under key, then prunes the cycle
// entries.
func (c resultCache) storeCycles(key string, g *lockgraph.Graph, cycles []*lockgraph.Cycle) error {
	index := make(map[*lockgraph.Edge]int, len(g.Edges()))
	for i, e := range g.Edges() {
		index[e] = i
	}
	s := storedCycles{Truncated: g.Truncated, Cycles: make([]storedCycle, 0, len(cycles))}
	for _, cy := range cycles {
		steps := make([]int, len(cy.Steps))
		for i, e := range cy.Steps {
			j, ok := index[e]
			if !ok {
				return errors.New("result cache: a cycle's step is not an edge of the graph")
			}
			steps[i] = j
		}
		bare := *cy
		bare.Steps = nil
		s.Cycles = append(s.Cycles, storedCycle{Cycle: &bare, Steps: steps})
	}
	dir := filepath.Join(c.dir, cyclesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	if err := writeGobFile(c.cycleFile(key), &s); err != nil {
		return err
	}
	pruneDir(dir, maxCycleEntries)
	return nil
}

// pruneDir removes the least recently modified files of dir beyond keep.
func pruneDir(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		mod  time.Time
	}
	var es []entry
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || strings.HasPrefix(e.Name(), "tmp-") {
			continue
		}
		es = append(es, entry{e.Name(), info.ModTime()})
	}
	if len(es) <= keep {
		return
	}
	slices.SortFunc(es, func(a, b entry) int { return b.mod.Compare(a.mod) })
	for _, e := range es[keep:] {
		_ = os.Remove(filepath.Join(dir, e.name))
	}
}
