package main

import (
	"fmt"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// A restored package's object facts are decoded when a pass first reads
// one of them, not when the package is restored: after an edit on hatchet,
// the passes that run read the facts of few of the 195 packages restored,
// and decoding all of them took a fifth of restoring, and their values a
// third of the live heap. Whether a fact exists, and its digest (kept in
// the entry), are known without decoding it. The entry's bytes passed
// their checksum when read (readCompactFile), so decoding them later
// cannot meet a corrupt file.

// lazyGroup holds the undecoded object facts of one restored package, in
// the order of their stream.
type lazyGroup struct {
	once    sync.Once
	dec     compactDecoder // positioned at the first of them
	types   []reflect.Type
	digests []string
	vals    []analysis.Fact
	err     error
	// decoded is told each value decoded, with its digest.
	decoded func(f analysis.Fact, digest string)
	pkg     string
}

// lazyRef is one fact of a group.
type lazyRef struct {
	g *lazyGroup
	i int
}

// value returns the fact, decoding the group's facts the first time.
func (r lazyRef) value() analysis.Fact {
	g := r.g
	g.once.Do(func() {
		g.vals = make([]analysis.Fact, len(g.types))
		for i, t := range g.types {
			f := reflect.New(t.Elem()).Interface().(analysis.Fact)
			if err := g.dec.decode(f); err != nil {
				g.err = err
				break
			}
			g.vals[i] = f
			if g.decoded != nil && g.digests[i] != "" {
				g.decoded(f, g.digests[i])
			}
		}
		g.dec = compactDecoder{} // its bytes are no longer needed
	})
	if g.err != nil {
		// Not expected: the entry passed its checksum. The pass that
		// read the fact reports the package as not analysed.
		panic(fmt.Sprintf("per-package cache: the facts of %s do not decode: %v", g.pkg, g.err))
	}
	return g.vals[r.i]
}

// setLazy adds the facts of a group under their keys, replacing those
// there.
func (s *factStore) setLazy(keys []factKey, g *lazyGroup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lazy == nil {
		s.lazy = map[factKey]lazyRef{}
	}
	for i, k := range keys {
		s.index(k)
		delete(s.m, k)
		s.lazy[k] = lazyRef{g, i}
	}
}

// storedDigest returns the digest an entry kept for a fact not decoded
// yet.
func (s *factStore) storedDigest(k factKey) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.m[k]; ok {
		return "", false
	}
	r, ok := s.lazy[k]
	if !ok || r.g.digests[r.i] == "" {
		return "", false
	}
	return r.g.digests[r.i], true
}
