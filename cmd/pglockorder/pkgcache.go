package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/objectpath"

	"github.com/pglockorder/pglockorder/analyzer"
)

// pkgCache keeps, per analysed package, its part of the results and the
// facts it exported, so that a run after an edit analyses again only the
// packages whose result can differ: those whose own inputs changed (their
// files, the export data of what they import, the run's binary, flags,
// configuration and schema: the key) and those that read a fact, of a
// package they import or of an implementation they call, that is not what
// it was (the entry's reads, checked against this run's facts by digest).
// An edit that leaves a package's facts as they were stops there: its
// importers' reads still match.
//
// The whole-run cache (cache.go) answers an unchanged tree without
// type-checking anything; this one still type-checks the analysed packages
// (a restored package's facts are bound to its objects through
// objectpath), but skips their analysis, most of a run's time.
type pkgCache struct {
	dir string
	// env identifies the run's environment: what every package's result
	// depends on besides its own inputs.
	env string
	// factTypes are the analyzer's fact types by name, for decoding.
	factTypes map[string]reflect.Type
	// digests memoizes the digest of each fact value.
	digests sync.Map
	// analysed holds the paths of the packages analysed in this run:
	// no other package's objects can have facts.
	analysed map[string]bool
	// writes are the entries being encoded and written in the
	// background, at most one at a time: a run's cycle search leaves
	// cores idle that encoding can use.
	writes  sync.WaitGroup
	writing sync.Mutex
}

// storeLater stores the entry in the background; wait waits for it.
func (c *pkgCache) storeLater(key string, u *unit, facts *factStore) {
	c.writes.Go(func() {
		c.writing.Lock()
		defer c.writing.Unlock()
		c.store(key, u, facts)
	})
}

// wait waits until every entry is written, then prunes the cache.
func (c *pkgCache) wait() {
	if c != nil {
		c.writes.Wait()
		c.prune(max(minKeptEntries, keptRuns*len(c.analysed)))
	}
}

// minKeptEntries and keptRuns bound the per-package cache: the entries of
// about keptRuns runs of the program are kept, the least recently used
// (written or restored) removed first.
const (
	minKeptEntries = 1000
	keptRuns       = 8
)

// prune removes the least recently used entries beyond keep.
func (c *pkgCache) prune(keep int) {
	files, err := filepath.Glob(filepath.Join(c.dir, "*", "*"))
	if err != nil || len(files) <= keep {
		return
	}
	type entry struct {
		name string
		mod  time.Time
	}
	es := make([]entry, 0, len(files))
	for _, f := range files {
		if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
			es = append(es, entry{f, info.ModTime()})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return b.mod.Compare(a.mod) })
	for _, e := range es[min(keep, len(es)):] {
		_ = os.Remove(e.name)
	}
}

// pkgEntry is what the cache keeps of one package's analysis.
type pkgEntry struct {
	// Reads are the facts of other packages the analysis read, with
	// their digests ("" for a fact that was absent).
	Reads []factRef
	// Lookups are the methods with summaries found for each name the
	// package's calls through interfaces looked up (analyzer.Result).
	Lookups map[string][]string
	// Facts are the facts the package exported.
	Facts []encodedFact
	// Part is its part of the results.
	Part *unitPart
}

// factRef names a fact read: the package, the object's path in it ("" for
// the package's fact), the fact's type, and the digest of its value.
type factRef struct {
	Pkg, Obj, Type, Digest string
}

// encodedFact is an exported fact, gob-encoded as go vet encodes facts.
type encodedFact struct {
	Obj, Type string
	Data      []byte
}

// newPkgCache returns the per-package cache inside the results cache, or
// nil when that is off.
func newPkgCache(c resultCache, env string, a *analysis.Analyzer) *pkgCache {
	if c.dir == "" || env == "" {
		return nil
	}
	pc := &pkgCache{dir: filepath.Join(c.dir, "pkgs"), env: env, factTypes: map[string]reflect.Type{}}
	for _, f := range a.FactTypes {
		t := reflect.TypeOf(f)
		pc.factTypes[t.String()] = t
	}
	return pc
}

// key is the hash of a package's own inputs, and whether it could be made.
func (c *pkgCache) key(p *packages.Package, source func(*packages.Package) bool) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", c.env, p.ID)
	files := slices.Concat(p.GoFiles, p.CompiledGoFiles, p.OtherFiles, p.EmbedFiles)
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		fmt.Fprintf(h, "file %s\x00", f)
		if hashFile(h, f) != nil {
			return "", false
		}
	}
	// What the package imports, as its types and SSA see it: the export
	// data's file is named after its content by the go command.
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		imp := p.Imports[path]
		fmt.Fprintf(h, "import %s %s %s %t\x00", path, imp.ID, imp.ExportFile, source(imp))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

func (c *pkgCache) file(key string) string { return filepath.Join(c.dir, key[:2], key) }

// load returns the entry stored under key.
func (c *pkgCache) load(key string) *pkgEntry {
	var e pkgEntry
	if !readGob(c.file(key), &e) || e.Part == nil {
		return nil
	}
	return &e
}

// store writes the entry of a package analysed now, if everything it read
// and exported can be named outside this process.
func (c *pkgCache) store(key string, u *unit, facts *factStore) {
	if why := c.put(key, u, facts); why != "" && analyzer.Debug() {
		fmt.Fprintf(os.Stderr, "pglockorder: per-package cache: %s not stored: %s\n", u.pkg.ID, why)
	}
}

// put stores the entry, or says why it cannot.
func (c *pkgCache) put(key string, u *unit, facts *factStore) string {
	res, ok := u.result.(*analyzer.Result)
	if !ok || u.err != nil || u.reads == nil || u.reads.everything {
		return "no result, or it read every fact"
	}
	e := &pkgEntry{Part: u.part(), Lookups: map[string][]string{}}
	for k, f := range u.reads.objects {
		if fn, ok := k.obj.(*types.Func); ok && fn.Origin() != fn && f == nil {
			// A generic method's instance: facts are the
			// origin's, an instance never has one.
			continue
		}
		path, err := objectpath.For(k.obj)
		d, ok := c.digest(f)
		if err != nil || !ok {
			return fmt.Sprintf("a fact it read cannot be named: %v (%v)", k.obj, err)
		}
		e.Reads = append(e.Reads, factRef{Pkg: k.obj.Pkg().Path(), Obj: string(path), Type: k.t.String(), Digest: d})
	}
	for k, f := range u.reads.packages {
		d, ok := c.digest(f)
		if !ok {
			return "a package fact it read cannot be encoded"
		}
		e.Reads = append(e.Reads, factRef{Pkg: k.pkg.Path(), Type: k.t.String(), Digest: d})
	}
	for name, found := range res.Lookups {
		refs, ok := objRefs(found)
		if !ok {
			return "a method it found cannot be named"
		}
		e.Lookups[name] = refs
	}
	exported := facts.objectsOf(u.pkg.Types)
	for _, t := range c.factTypes {
		k := factKey{pkg: u.pkg.Types, t: t}
		if f := facts.get(k); f != nil {
			exported = append(exported, factEntry{k, f})
		}
	}
	for _, ef := range exported {
		var obj objectpath.Path
		if ef.key.obj != nil {
			var err error
			if obj, err = objectpath.For(ef.key.obj); err != nil {
				return fmt.Sprintf("an object with a fact cannot be named: %v", err)
			}
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(ef.fact); err != nil {
			return fmt.Sprintf("encoding a fact: %v", err)
		}
		e.Facts = append(e.Facts, encodedFact{Obj: string(obj), Type: ef.key.t.String(), Data: buf.Bytes()})
	}
	name := c.file(key)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err.Error()
	}
	if err := writeGobFile(name, e); err != nil {
		return err.Error()
	}
	return ""
}

// digest returns a digest of a fact's value ("" for none), and whether it
// could be made.
func (c *pkgCache) digest(f analysis.Fact) (string, bool) {
	if f == nil {
		return "", true
	}
	if d, ok := c.digests.Load(f); ok {
		return d.(string), true
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(f); err != nil {
		return "", false
	}
	sum := sha256.Sum256(buf.Bytes())
	d := hex.EncodeToString(sum[:])
	c.digests.Store(f, d)
	return d, true
}

// objRefs names objects outside the process: package path and object path,
// sorted (a package and its test variant share a path, and so their order
// in a lookup's answer is not the same in every run).
func objRefs(objs []*types.Func) ([]string, bool) {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		path, err := objectpath.For(o)
		if err != nil {
			return nil, false
		}
		out = append(out, o.Pkg().Path()+"\x00"+string(path))
	}
	slices.Sort(out)
	return out, true
}

// restore puts a package's cached facts into the store; it reports false,
// with nothing stored, if one of them names an object its types lack.
func (c *pkgCache) restore(p *packages.Package, e *pkgEntry, facts *factStore) bool {
	type decoded struct {
		k factKey
		f analysis.Fact
	}
	var all []decoded
	for _, ef := range e.Facts {
		t, ok := c.factTypes[ef.Type]
		if !ok {
			return false
		}
		f := reflect.New(t.Elem()).Interface().(analysis.Fact)
		if err := gob.NewDecoder(bytes.NewReader(ef.Data)).Decode(f); err != nil {
			return false
		}
		k := factKey{pkg: p.Types, t: t}
		if ef.Obj != "" {
			obj, err := objectpath.Object(p.Types, objectpath.Path(ef.Obj))
			if err != nil {
				return false
			}
			k = factKey{obj: obj, t: t}
		}
		// The digest of what was stored is that of the bytes read
		// back: importers compare theirs against it.
		sum := sha256.Sum256(ef.Data)
		c.digests.Store(f, hex.EncodeToString(sum[:]))
		all = append(all, decoded{k, f})
	}
	for _, d := range all {
		facts.set(d.k, d.f)
	}
	return true
}

// valid reports why a read of the entry would not get the same answer in
// this run ("" when every read would). Reads of the packages in group are not checked: the group's
// entries are restored together, from one earlier run.
func (c *pkgCache) valid(p *packages.Package, e *pkgEntry, facts *factStore, visible *visibleSet, group map[string]bool) (why string) {
	pkgs := map[string]*types.Package{}
	var add func(*types.Package)
	add = func(tp *types.Package) {
		if _, ok := pkgs[tp.Path()]; ok {
			return
		}
		pkgs[tp.Path()] = tp
		for _, imp := range tp.Imports() {
			add(imp)
		}
	}
	for _, tp := range visible.packages() {
		add(tp)
	}
	add(p.Types)
	for _, r := range e.Reads {
		if group[r.Pkg] {
			continue
		}
		if r.Digest == "" && !c.analysed[r.Pkg] {
			continue // absent then, absent now
		}
		tp, t := pkgs[r.Pkg], c.factTypes[r.Type]
		if tp == nil || t == nil {
			return "it read a fact of " + r.Pkg + ", not in this run"
		}
		k := factKey{pkg: tp, t: t}
		if r.Obj != "" {
			obj, err := objectpath.Object(tp, objectpath.Path(r.Obj))
			if err != nil {
				return "it read a fact of " + r.Pkg + "." + r.Obj + ", not in this run"
			}
			k = factKey{obj: obj, t: t}
		}
		if d, ok := c.digest(facts.get(k)); !ok || d != r.Digest {
			return "a fact it read changed: " + r.Pkg + " " + r.Obj
		}
	}
	if len(e.Lookups) == 0 {
		return ""
	}
	lookup := methodsNow(facts, visiblePackageFacts(facts, visible), p.Types)
	for name, want := range e.Lookups {
		got, ok := objRefs(lookup(name))
		if !ok || !slices.Equal(got, want) {
			return "the implementations of the methods named " + name + " changed"
		}
	}
	return ""
}

// miss says, under -debug, why a package was analysed again.
func (c *pkgCache) miss(p *packages.Package, why string) {
	if analyzer.Debug() {
		fmt.Fprintf(os.Stderr, "pglockorder: per-package cache: %s analysed: %s\n", p.ID, why)
	}
}

// tryRestore restores a group of packages (members, indexes into order)
// from the cache: all of them or none. It returns the members' keys (nil
// when one cannot be made, and then nothing is stored either) and, when
// every member had an entry whose reads still hold, their units.
func (c *pkgCache) tryRestore(members []int, order []*packages.Package, failed []error, facts *factStore, visible *visibleSet, source func(*packages.Package) bool) ([]string, []*unit) {
	keys := make([]string, len(members))
	for j, i := range members {
		if failed[i] != nil {
			return nil, nil
		}
		k, ok := c.key(order[i], source)
		if !ok {
			return nil, nil
		}
		keys[j] = k
	}
	entries := make([]*pkgEntry, len(members))
	for j, i := range members {
		if entries[j] = c.load(keys[j]); entries[j] == nil {
			c.miss(order[i], "no entry for its inputs")
			return keys, nil
		}
	}
	undo := func() {
		for _, i := range members {
			facts.drop(order[i].Types)
		}
	}
	group := map[string]bool{}
	if len(members) > 1 {
		for _, i := range members {
			group[order[i].Types.Path()] = true
		}
	}
	for j, i := range members {
		if !c.restore(order[i], entries[j], facts) {
			c.miss(order[i], "its facts name objects it lacks")
			undo()
			return keys, nil
		}
	}
	for j, i := range members {
		if why := c.valid(order[i], entries[j], facts, visible, group); why != "" {
			c.miss(order[i], why)
			undo()
			return keys, nil
		}
	}
	units := make([]*unit, len(members))
	for j, i := range members {
		units[j] = &unit{pkg: order[i], restored: entries[j].Part}
		c.touch(keys[j])
	}
	return keys, units
}

// touch marks an entry used, for pruning.
func (c *pkgCache) touch(key string) {
	now := time.Now()
	_ = os.Chtimes(c.file(key), now, now)
}
