package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
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
// importers' reads still match. A group of packages that call each other's
// interfaces is analysed in two rounds (schedule.go); each round's pass is
// an entry of its own, restored when its reads, of the other members'
// facts included, get the same answers as when it was made, so an edit to
// one member does not make the others analysed again.
//
// The whole-run cache (cache.go) answers an unchanged tree without
// type-checking anything; this one still type-checks the analysed packages
// (a restored package's facts are bound to its objects through
// objectpath), but skips their analysis, most of a run's time.
type pkgCache struct {
	dir string
	// ids are the identities of the run's packages (exports.go).
	ids *identities
	// env identifies the run's environment: what every package's result
	// depends on besides its own inputs.
	env string
	// factTypes are the analyzer's fact types by name, for decoding.
	factTypes map[string]reflect.Type
	// analysed holds the paths of the packages analysed in this run:
	// no other package's objects can have facts.
	analysed map[string]bool
	// analysedPkgs are the packages analysed in this run.
	analysedPkgs map[*packages.Package]bool
	// relevant marks the packages that have the path of one analysed
	// in this run or import one (markRelevant).
	relevant map[*packages.Package]bool
	// byPath lists the packages analysed in this run by import path, in
	// the order of the run.
	byPath map[string][]*packages.Package
	// passes counts the entries of a run: one pass per package, two per
	// member of a group analysed in two rounds, and each package's kept
	// interface calls (declonly.go).
	passes int
	// writes are the entries being encoded and written in the
	// background, at most one at a time: a run's cycle search leaves
	// cores idle that encoding can use.
	writes  sync.WaitGroup
	writing sync.Mutex
	// entries are the entries decoded in this run, by key (nil for
	// none): a run that starts again restores the same ones.
	entriesMu   sync.Mutex
	entries     map[string]*pkgEntry
	keepEntries atomic.Bool
}

// storeLater stores the entry of a pass just made: it is made now (the
// facts the package exported are taken before a second round replaces
// them; see prepare) and written in the background; wait waits for it.
func (c *pkgCache) storeLater(key string, u *unit, facts *factStore) {
	pe, why := c.prepare(u, facts)
	if why != "" {
		notStored(u.pkg.ID, why)
		return
	}
	c.writes.Go(func() {
		c.writing.Lock()
		defer c.writing.Unlock()
		if why := c.write(key, pe); why != "" {
			notStored(pe.id, why)
		}
	})
}

// notStored says, with -debug, why a package's entry was not stored.
func notStored(id, why string) {
	if analyzer.Debug() {
		fmt.Fprintf(os.Stderr, "pglockorder: per-package cache: %s not stored: %s\n", id, why)
	}
}

// exported returns the facts that a package exported.
func (c *pkgCache) exported(pkg *types.Package, facts *factStore) []factEntry {
	out := facts.objectsOf(pkg)
	for _, t := range c.factTypes {
		k := factKey{pkg: pkg, t: t}
		if f := facts.get(k); f != nil {
			out = append(out, factEntry{k, f})
		}
	}
	return out
}

// wait waits until every entry is written, then prunes the cache.
func (c *pkgCache) wait() {
	if c != nil {
		c.writes.Wait()
		c.prune(max(minKeptEntries, keptRuns*c.passes))
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
	// Facts name the facts the package exported, and FactData holds
	// their values, compactly encoded (compact.go) in that order in one
	// stream of its own, decoded only when the entry is restored.
	Facts    []encodedFact
	FactData []byte
	// Part is its part of the results.
	Part *unitPart
}

// factRef names a fact read: the package, the object's path in it ("" for
// the package's fact), the fact's type, and the digest of its value.
type factRef struct {
	Pkg, Obj, Type, Digest string
}

// encodedFact names an exported fact: the object's path ("" for the
// package's fact) and the fact's type, with the digest of its value (the
// packages that read it check their entries with it: kept, it need not be
// computed again from the decoded value).
type encodedFact struct {
	Obj, Type, Digest string
}

// newPkgCache returns the per-package cache inside the results cache, or
// nil when that is off.
func newPkgCache(c resultCache, env string, ids *identities, a *analysis.Analyzer) *pkgCache {
	if c.dir == "" || env == "" || ids == nil {
		return nil
	}
	pc := &pkgCache{dir: filepath.Join(c.dir, "pkgs"), env: env, ids: ids, factTypes: map[string]reflect.Type{}}
	for _, f := range a.FactTypes {
		t := reflect.TypeOf(f)
		pc.factTypes[t.String()] = t
	}
	return pc
}

// key is the hash of a package's own inputs, and whether it could be made:
// its identity, which covers its files and everything it imports
// (exports.go), and which of its imports are analysed from source.
func (c *pkgCache) key(p *packages.Package, source func(*packages.Package) bool) (string, bool) {
	id, ok := c.ids.of[p]
	if !ok {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", c.env, p.ID, id)
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		imp := p.Imports[path]
		fmt.Fprintf(h, "import %s %s %t\x00", path, imp.ID, source(imp))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

func (c *pkgCache) file(key string) string { return filepath.Join(c.dir, key[:2], key) }

// load returns the entry stored under key.
func (c *pkgCache) load(key string) *pkgEntry {
	var e pkgEntry
	if !readCompactFile(c.file(key), &e) || e.Part == nil {
		return nil
	}
	return &e
}

// pendingEntry is an entry made but not yet written.
type pendingEntry struct {
	e *pkgEntry
	// id names the package in -debug messages.
	id string
}

// prepare makes a pass's entry, but for writing it, or says why it cannot
// be stored: it names what the pass read and exported outside this
// process, digests the facts read and exported, and encodes the exported
// ones. All of it is done when the pass ends, so that an entry waiting to
// be written holds bytes and names, no fact value and no types object:
// the facts of a package no pass will read again can go (analyzeStart),
// and a run whose writes lag behind its analysis does not keep them, nor
// the analysed packages' types, alive until they are written (on hatchet,
// after an edit, the export data those types hold was a fifth of the heap
// while the lock graph was built). The digests of the exported facts are
// kept in the store, for the passes that read them.
func (c *pkgCache) prepare(u *unit, facts *factStore) (*pendingEntry, string) {
	res, ok := u.result.(*analyzer.Result)
	if !ok || u.err != nil || u.reads == nil || u.reads.everything {
		return nil, "no result, or it read every fact"
	}
	// One encoder names all the objects: objectpath.For walks the
	// object's package for each, the encoder once per package.
	var names objectpath.Encoder
	pe := &pendingEntry{e: &pkgEntry{Part: u.part(), Lookups: map[string][]string{}}, id: u.pkg.ID}
	e := pe.e
	// digestRead sets the digest of the read just listed, the fact f
	// read under k.
	digestRead := func(k factKey, f analysis.Fact) bool {
		d, ok := c.digest(facts, k, f)
		if ok {
			e.Reads[len(e.Reads)-1].Digest = d
		}
		return ok
	}
	for k, f := range u.reads.objects {
		if fn, ok := k.obj.(*types.Func); ok && fn.Origin() != fn && f == nil {
			// A generic method's instance: facts are the
			// origin's, an instance never has one.
			continue
		}
		path, err := names.For(k.obj)
		if err != nil {
			return nil, fmt.Sprintf("a fact it read cannot be named: %v (%v)", k.obj, err)
		}
		e.Reads = append(e.Reads, factRef{Pkg: k.obj.Pkg().Path(), Obj: string(path), Type: k.t.String()})
		if !digestRead(k, f) {
			return nil, "a fact it read cannot be encoded"
		}
	}
	for k, f := range u.reads.packages {
		e.Reads = append(e.Reads, factRef{Pkg: k.pkg.Path(), Type: k.t.String()})
		if !digestRead(k, f) {
			return nil, "a fact it read cannot be encoded"
		}
	}
	for name, found := range res.Lookups {
		refs, ok := objRefs(&names, found)
		if !ok {
			return nil, "a method it found cannot be named"
		}
		e.Lookups[name] = refs
	}
	// The package facts first: they are decoded when the entry is
	// restored, the object facts after them only when read.
	exported := c.exported(u.pkg.Types, facts)
	exported = slices.Concat(
		slices.DeleteFunc(slices.Clone(exported), func(ef factEntry) bool { return ef.key.obj != nil }),
		slices.DeleteFunc(slices.Clone(exported), func(ef factEntry) bool { return ef.key.obj == nil }))
	var enc compactEncoder
	for _, ef := range exported {
		var obj objectpath.Path
		if ef.key.obj != nil {
			var err error
			if obj, err = names.For(ef.key.obj); err != nil {
				return nil, fmt.Sprintf("an object with a fact cannot be named: %v", err)
			}
		}
		if err := enc.encode(ef.fact); err != nil {
			return nil, fmt.Sprintf("encoding a fact: %v", err)
		}
		d, ok := c.digest(facts, ef.key, ef.fact)
		if !ok {
			return nil, "an exported fact cannot be digested"
		}
		e.Facts = append(e.Facts, encodedFact{Obj: string(obj), Type: ef.key.t.String(), Digest: d})
	}
	e.FactData = enc.buf
	return pe, ""
}

// write writes a prepared entry under key, or says why it cannot.
func (c *pkgCache) write(key string, pe *pendingEntry) string {
	name := c.file(key)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err.Error()
	}
	if err := writeCompactFile(name, pe.e); err != nil {
		return err.Error()
	}
	return ""
}

// digest returns the digest of f, read or exported under k ("" for none),
// and whether it could be made: the one the store knows for it, or one
// made now and then known to the store while f is the value under k (a
// fact read by many passes is digested once).
func (c *pkgCache) digest(facts *factStore, k factKey, f analysis.Fact) (string, bool) {
	if f == nil {
		return "", true
	}
	if d, ok := facts.digestOf(k, f); ok {
		return d, true
	}
	sum, err := factDigest(f)
	if err != nil {
		return "", false
	}
	d := hex.EncodeToString(sum[:])
	facts.setDigest(k, f, d)
	return d, true
}

// objRefs names objects outside the process: package path and object path,
// sorted (a package and its test variant share a path, and so their order
// in a lookup's answer is not the same in every run).
func objRefs(names *objectpath.Encoder, objs []*types.Func) ([]string, bool) {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		path, err := names.For(o)
		if err != nil {
			return nil, false
		}
		out = append(out, o.Pkg().Path()+"\x00"+string(path))
	}
	slices.Sort(out)
	return out, true
}

// restore puts a package's cached facts into the store; it reports false,
// with nothing stored, if one of them names an object its types lack. The
// package facts, first in the stream, are decoded now; the object facts
// when first read (lazyfacts.go).
func (c *pkgCache) restore(p *packages.Package, e *pkgEntry, facts *factStore) bool {
	type decoded struct {
		k factKey
		f analysis.Fact
		d string
	}
	var eager []decoded
	dec := compactDecoder{b: e.FactData}
	g := &lazyGroup{pkg: p.ID}
	var lazyKeys []factKey
	for _, ef := range e.Facts {
		t, ok := c.factTypes[ef.Type]
		if !ok {
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
		if ef.Obj == "" && len(lazyKeys) == 0 {
			f := reflect.New(t.Elem()).Interface().(analysis.Fact)
			if err := dec.decode(f); err != nil {
				return false
			}
			eager = append(eager, decoded{k, f, ef.Digest})
			continue
		}
		lazyKeys = append(lazyKeys, k)
		g.types = append(g.types, t)
		g.digests = append(g.digests, ef.Digest)
	}
	g.dec = dec
	for _, d := range eager {
		facts.setDigested(d.k, d.f, d.d)
	}
	if len(lazyKeys) > 0 {
		facts.setLazy(lazyKeys, g)
	}
	return true
}

// digestOf returns the digest of the fact under k ("" for none), and
// whether it could be made: the one known to the store (a restored fact's
// is its entry's, whether decoded or not), or one made now.
func (c *pkgCache) digestOf(facts *factStore, k factKey) (string, bool) {
	if d, ok := facts.knownDigest(k); ok {
		return d, true
	}
	return c.digest(facts, k, facts.get(k))
}

// valid reports why a read of the entry would not get the same answer in
// this run ("" when every read would).
func (c *pkgCache) valid(p *packages.Package, e *pkgEntry, facts *factStore, visible *visibleSet) (why string) {
	var imported map[string]*packages.Package
	for _, r := range e.Reads {
		if r.Digest == "" && !c.analysed[r.Pkg] {
			continue // absent then, absent now
		}
		if imported == nil {
			imported = c.importClosure(p)
		}
		tp, t := c.visibleByPath(r.Pkg, visible), c.factTypes[r.Type]
		if q := imported[r.Pkg]; q != nil && q != p {
			// A package the pass imports, directly or not: the
			// variant of that path it sees (a package and its test
			// variants share a path, and more than one may be
			// visible), or none if that one is seen through export
			// data, whose objects have no facts. (Facts of p's own
			// path are another variant's: its own are not reads.)
			tp = nil
			if c.analysedPkgs[q] {
				tp = q.Types
			}
		}
		if tp == nil && r.Digest == "" {
			// Absent then, absent now: the pass can read facts only
			// of the packages it sees, and none with this path is
			// visible to it; the one analysed in this run under that
			// path is another variant (the test variant of a package
			// seen through export data by this one).
			continue
		}
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
		if d, ok := c.digestOf(facts, k); !ok || d != r.Digest {
			return "a fact it read changed: " + r.Pkg + " " + r.Obj
		}
	}
	if len(e.Lookups) == 0 {
		return ""
	}
	lookup := methodsNow(facts, visiblePackageFacts(facts, visible), p.Types)
	var names objectpath.Encoder
	for name, want := range e.Lookups {
		got, ok := objRefs(&names, lookup(name))
		if !ok || !slices.Equal(got, want) {
			return "the implementations of the methods named " + name + " changed"
		}
	}
	return ""
}

// visibleByPath returns the first package of the run with import path
// path whose facts are visible (a package and its test variants share a
// path): the only ones whose facts a pass reads.
func (c *pkgCache) visibleByPath(path string, visible *visibleSet) *types.Package {
	for _, q := range c.byPath[path] {
		if visible.containsPackage(q) && q.Types != nil {
			return q.Types
		}
	}
	return nil
}

// miss says, under -debug, why a package was analysed again.
func (c *pkgCache) miss(p *packages.Package, round, rounds int, why string) {
	if analyzer.Debug() {
		if rounds > 1 {
			why = fmt.Sprintf("round %d: %s", round+1, why)
		}
		fmt.Fprintf(os.Stderr, "pglockorder: per-package cache: %s analysed: %s\n", p.ID, why)
	}
}

// roundKey is the key of a package's pass in a round of its group's
// analysis ("" when the package has none): the pass of each round is kept,
// since the second reads what the first round of the others exported.
func roundKey(key string, round, rounds int) string {
	if key == "" || rounds == 1 {
		return key
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00round %d of %d", key, round+1, rounds))
	return hex.EncodeToString(sum[:])
}

// restorePass returns the unit of the package's pass from the entry kept
// under key, its facts put into the store (replacing those of an earlier
// round), when every read of that pass still gets the same answer; nil when
// not (in a second round, the package's facts of the first may then be
// dropped already, as the pass made instead drops them).
func (c *pkgCache) restorePass(key string, p *packages.Package, round, rounds int, facts *factStore, visible *visibleSet) *unit {
	if c == nil || key == "" {
		return nil
	}
	e := c.entryOf(key)
	if e == nil {
		c.miss(p, round, rounds, "no entry for its inputs")
		return nil
	}
	if why := c.valid(p, e, facts, visible); why != "" {
		c.miss(p, round, rounds, why)
		return nil
	}
	if round > 0 {
		facts.drop(p.Types)
	}
	if !c.restore(p, e, facts) {
		c.miss(p, round, rounds, "its facts name objects it lacks")
		return nil
	}
	c.touch(key)
	// The unit keeps what a second round checks, not the encoded facts,
	// which the store now holds decoded.
	return &unit{pkg: p, restored: e.Part, entry: &pkgEntry{Reads: e.Reads, Lookups: e.Lookups}}
}

// unchanged reports whether every read of the pass that made u would get
// the same answer now, so that a second round need not make it again.
func (c *pkgCache) unchanged(u *unit, facts *factStore, visible *visibleSet) bool {
	if u.entry != nil {
		return c != nil && c.valid(u.pkg, u.entry, facts, visible) == ""
	}
	return u.reads.unchanged(facts, visible, u.result)
}

// touch marks an entry used, for pruning.
func (c *pkgCache) touch(key string) {
	now := time.Now()
	_ = os.Chtimes(c.file(key), now, now)
}

// markRelevant records which packages import, directly or not, a package
// with the path of one analysed in this run, or have such a path: the only
// ones whose place in an import closure valid reads.
func (c *pkgCache) markRelevant(order []*packages.Package) {
	c.relevant = map[*packages.Package]bool{}
	var walk func(q *packages.Package) bool
	walk = func(q *packages.Package) bool {
		if r, ok := c.relevant[q]; ok {
			return r
		}
		c.relevant[q] = false // imports have no cycles; this is a guard
		r := c.analysed[q.PkgPath]
		for _, imp := range q.Imports {
			r = walk(imp) || r
		}
		c.relevant[q] = r
		return r
	}
	for _, p := range order {
		walk(p)
	}
}

// importClosure returns the packages p imports, directly or not, and p, by
// path: one package per path in one package's import graph. It leaves out
// the packages that neither have the path of a package analysed in this
// run nor import one, such as the standard library's (walking those took
// most of checking the entries' reads on hatchet): valid treats a path not
// analysed in this run alike whether the closure has it or not.
func (c *pkgCache) importClosure(p *packages.Package) map[string]*packages.Package {
	return closureWhere(p, func(q *packages.Package) bool {
		rel, known := c.relevant[q]
		return rel || !known
	})
}

// importClosure returns the packages p imports, directly or not, and p, by
// path: one package per path in one package's import graph.
func importClosure(p *packages.Package) map[string]*packages.Package {
	return closureWhere(p, func(*packages.Package) bool { return true })
}

// closureWhere is importClosure without the imports for which keep is
// false, and theirs.
func closureWhere(p *packages.Package, keep func(*packages.Package) bool) map[string]*packages.Package {
	out := map[string]*packages.Package{}
	var walk func(q *packages.Package)
	walk = func(q *packages.Package) {
		if _, ok := out[q.PkgPath]; ok {
			return
		}
		out[q.PkgPath] = q
		for _, imp := range q.Imports {
			if keep(imp) {
				walk(imp)
			}
		}
	}
	walk(p)
	return out
}
