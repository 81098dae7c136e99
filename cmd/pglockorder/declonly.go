package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/objectpath"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// A package whose passes the per-package cache will restore needs its
// declarations, not its function bodies: its importers are type-checked
// against its types, its facts are bound to its objects, and the packages
// that implement the interfaces it calls are found from its types. So the
// driver type-checks such a package with go/types' IgnoreFuncBodies and
// keeps no syntax or type information of its bodies: type-checking the
// bodies was most of the type-checking time of a run after an edit, and
// holding every package's was most of its peak memory.
//
// Two things a restored package's bodies gave are kept with its entry
// instead. The interfaces its calls go through (implDeps schedules it after
// their implementations) are kept as callRefs under its key, written when
// it was type-checked in full. And whether it can be restored at all is
// known only when the packages before it are done: a fact it read may have
// changed. A package planned as restorable that must be analysed again
// cannot be (its bodies were not checked, and its importers are bound to
// its types): the run starts again with it type-checked in full, and with
// every package that read facts of a package analysed again, by import
// path, so that one more start is rare; a third start checks every package
// in full, as a run without the per-package cache does. Each start is an
// ordinary run with some passes restored, so the results are the same
// whichever start completes.

// ifaceCall is a call through an interface: the interface and the method's
// name (implDeps).
type ifaceCall struct {
	iface *types.Interface
	name  string
}

// callRef names an interface call outside the process: the named interface
// type by its package's path and objectpath (by its name alone, with no
// path, for the universe's error), and the method's name.
type callRef struct {
	Pkg, Obj, Name string
}

// calledInterfaces returns the interface calls of a package type-checked in
// full, and, if name is set, their names, or nil names when one cannot be
// named (an interface literal, a type parameter, an instantiated generic
// interface or one declared in a function): such a package is always
// type-checked in full.
func calledInterfaces(p *packages.Package, name bool) ([]ifaceCall, []callRef) {
	seen := map[ifaceCall]bool{}
	var calls []ifaceCall
	var refs []callRef
	nameable := name // without a cache, nothing is kept
	for _, sel := range p.TypesInfo.Selections {
		if sel.Kind() != types.MethodVal {
			continue
		}
		it, ok := sel.Recv().Underlying().(*types.Interface)
		if !ok || analyzer.UserRules().KindOf(sel.Recv()) != sqlsite.NotHandle {
			continue // a database handle's methods are modelled
		}
		c := ifaceCall{it, sel.Obj().Name()}
		if seen[c] {
			continue
		}
		seen[c] = true
		calls = append(calls, c)
		if !nameable {
			continue
		}
		named, ok := types.Unalias(sel.Recv()).(*types.Named)
		if ok && named.Obj().Pkg() == nil && types.Universe.Lookup(named.Obj().Name()) == named.Obj() {
			// error: the universe's, named by its name alone.
			refs = append(refs, callRef{Obj: named.Obj().Name(), Name: c.name})
			continue
		}
		if ok && named.TypeArgs().Len() == 0 && named.Obj().Pkg() != nil {
			path, err := objectpath.For(named.Obj())
			if err == nil {
				refs = append(refs, callRef{Pkg: named.Obj().Pkg().Path(), Obj: string(path), Name: c.name})
				continue
			}
		}
		nameable = false
		if analyzer.Debug() {
			fmt.Fprintf(os.Stderr, "pglockorder: per-package cache: %s: a call through %s, which cannot be named: always type-checked in full\n", p.ID, sel.Recv())
		}
	}
	if !nameable {
		return calls, nil
	}
	slices.SortFunc(refs, func(a, b callRef) int {
		return cmp.Or(strings.Compare(a.Pkg, b.Pkg), strings.Compare(a.Obj, b.Obj), strings.Compare(a.Name, b.Name))
	})
	refs = slices.Compact(refs)
	if refs == nil {
		refs = []callRef{}
	}
	return calls, refs
}

// resolveCalls binds the interface calls a package's entry names to this
// run's types: each interface is looked up in the package or the packages
// it imports, directly or not (one package per path there). It reports
// false when one cannot be found.
func (c *checker) resolveCalls(p *packages.Package, refs []callRef) ([]ifaceCall, bool) {
	byPath := importClosure(p)
	out := make([]ifaceCall, 0, len(refs))
	for _, r := range refs {
		if r.Pkg == "" {
			obj := types.Universe.Lookup(r.Obj)
			if obj == nil {
				return nil, false
			}
			it, ok := obj.Type().Underlying().(*types.Interface)
			if !ok {
				return nil, false
			}
			out = append(out, ifaceCall{it, r.Name})
			continue
		}
		q := byPath[r.Pkg]
		if q == nil {
			return nil, false
		}
		tp := c.typesFor(q)
		if tp == nil {
			return nil, false
		}
		obj, err := objectpath.Object(tp, objectpath.Path(r.Obj))
		if err != nil {
			return nil, false
		}
		it, ok := obj.Type().Underlying().(*types.Interface)
		if !ok {
			return nil, false
		}
		out = append(out, ifaceCall{it, r.Name})
	}
	return out, true
}

// typesFor returns the types of a package already checked or read, or nil.
func (c *checker) typesFor(q *packages.Package) *types.Package {
	if c.source(q) {
		return q.Types
	}
	c.exportMu.Lock()
	defer c.exportMu.Unlock()
	return c.export[q]
}

// callsFile is where the interface calls of the package with key are kept.
func (c *pkgCache) callsFile(key string) string {
	sum := sha256.Sum256([]byte(key + "\x00interface calls"))
	return c.file(hex.EncodeToString(sum[:]))
}

// loadCalls returns the interface calls kept for the package with key.
func (c *pkgCache) loadCalls(key string) ([]callRef, bool) {
	var refs []callRef
	if !readCompactFile(c.callsFile(key), &refs) {
		return nil, false
	}
	c.touch(c.callsFile(key))
	return refs, true
}

// storeCalls keeps the interface calls of the package with key, unless kept
// already, in the background.
func (c *pkgCache) storeCalls(key string, refs []callRef) {
	name := c.callsFile(key)
	if _, err := os.Stat(name); err == nil {
		c.touch(name)
		return
	}
	c.writes.Go(func() {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err == nil {
			_ = writeCompactFile(name, &refs) // an optimisation: a failure costs a full type-check next time
		}
	})
}

// hasEntry reports whether a pass of the package with key, alone or in the
// first round of a group, has an entry.
func (c *pkgCache) hasEntry(key string) bool {
	for _, k := range []string{key, roundKey(key, 0, 2)} {
		if _, err := os.Stat(c.file(k)); err == nil {
			return true
		}
	}
	return false
}

// entryOf returns the entry kept under key, decoded once per run: a run
// that starts again restores the same entries. A missing entry is looked
// for again each time.
func (c *pkgCache) entryOf(key string) *pkgEntry {
	c.entriesMu.Lock()
	e, ok := c.entries[key]
	c.entriesMu.Unlock()
	if ok {
		return e
	}
	e = c.load(key)
	if e == nil || !c.keepEntries.Load() {
		// Not kept: a start that stopped may write it yet. And
		// until a start stops, no entry is restored twice: the
		// first start holds none beyond its restoring.
		return e
	}
	c.entriesMu.Lock()
	if c.entries == nil {
		c.entries = map[string]*pkgEntry{}
	}
	c.entries[key] = e
	c.entriesMu.Unlock()
	return e
}

// plan is how one start of a run type-checks the packages.
type plan struct {
	// declOnly are the packages planned as restored: type-checked
	// without their bodies.
	declOnly map[*packages.Package]bool
	// keys are the packages' keys in the per-package cache.
	keys map[*packages.Package]string
	// calls are the kept interface calls of the packages in declOnly.
	calls map[*packages.Package][]callRef
}

// makePlan plans a start of the run: every package whose key has an entry
// and kept interface calls is planned as restored, except, after a start
// that failed, those in again and those that read a fact of a package
// analysed again (by path, through the entries' reads and lookups), and,
// from the third start on, every package.
func makePlan(pc *pkgCache, order []*packages.Package, source func(*packages.Package) bool, attempt int, again map[string]bool) *plan {
	pl := &plan{declOnly: map[*packages.Package]bool{}, keys: map[*packages.Package]string{}, calls: map[*packages.Package][]callRef{}}
	if pc == nil {
		return pl
	}
	var mu sync.Mutex
	runDAG(len(order), func(int) []int { return nil }, workers(), func(i int) {
		p := order[i]
		key, ok := pc.key(p, source)
		if !ok {
			return
		}
		var refs []callRef
		planned := attempt < 2 && !again[p.ID] && pc.hasEntry(key)
		if planned {
			refs, planned = pc.loadCalls(key)
		}
		mu.Lock()
		defer mu.Unlock()
		pl.keys[p] = key
		if planned {
			pl.declOnly[p], pl.calls[p] = true, refs
		}
	})
	if attempt != 1 {
		return pl
	}
	pc.keepEntries.Store(true)
	// The paths of the packages that will be analysed: those not
	// planned as restored, and, in turn, those that read their facts.
	changed := map[string]bool{}
	for _, p := range order {
		if !pl.declOnly[p] {
			changed[p.PkgPath] = true
		}
	}
	reads := map[*packages.Package][]string{}
	for p := range pl.declOnly {
		key := pl.keys[p]
		for _, k := range []string{key, roundKey(key, 0, 2), roundKey(key, 1, 2)} {
			e := pc.entryOf(k)
			if e == nil {
				continue
			}
			for _, r := range e.Reads {
				reads[p] = append(reads[p], r.Pkg)
			}
			for _, found := range e.Lookups {
				for _, ref := range found {
					pkg, _, _ := strings.Cut(ref, "\x00")
					reads[p] = append(reads[p], pkg)
				}
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for _, p := range order {
			if !pl.declOnly[p] {
				continue
			}
			if slices.ContainsFunc(reads[p], func(path string) bool { return changed[path] }) {
				delete(pl.declOnly, p)
				delete(pl.calls, p)
				changed[p.PkgPath], grew = true, true
			}
		}
	}
	return pl
}
