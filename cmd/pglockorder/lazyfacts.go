package main

import (
	"fmt"
	"reflect"
	"sync"
	"weak"

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
//
// The facts of a group are decoded together (the stream cannot be entered
// in the middle), but a pass reads few of them: after an edit on hatchet,
// 63 of the 1,305 facts of the 21 groups decoded, whose values were a
// sixth of the heap at its peak. So a group keeps the facts read, and the
// others only weakly: the collector may take them, and the group is
// decoded again, from its bytes, when another of its facts is read.
type lazyGroup struct {
	mu sync.Mutex
	// dec is positioned at the first of the facts; each decoding starts
	// from a fork of it.
	dec     compactDecoder
	types   []reflect.Type
	digests []string
	// kept are the facts read (nil for those not read yet); all holds
	// the last decoding's values weakly.
	kept []analysis.Fact
	all  weak.Pointer[[]analysis.Fact]
	err  error
	pkg  string
}

// lazyRef is one fact of a group.
type lazyRef struct {
	g *lazyGroup
	i int
}

// value returns the fact, decoding the group's facts if they are not at
// hand.
func (r lazyRef) value() analysis.Fact {
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.kept == nil {
		g.kept = make([]analysis.Fact, len(g.types))
	}
	if f := g.kept[r.i]; f != nil {
		return f
	}
	all := g.all.Value()
	if all == nil && g.err == nil {
		vals, err := g.decode()
		if err != nil {
			g.err = err
		} else {
			all = &vals
			g.all = weak.Make(all)
		}
	}
	if g.err != nil {
		// Not expected: the entry passed its checksum. The pass that
		// read the fact reports the package as not analysed.
		panic(fmt.Sprintf("per-package cache: the facts of %s do not decode: %v", g.pkg, g.err))
	}
	f := (*all)[r.i]
	g.kept[r.i] = f
	return f
}

// holds reports whether f is the value a pass read of this fact.
func (r lazyRef) holds(f analysis.Fact) bool {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.g.kept != nil && r.g.kept[r.i] == f
}

// decode decodes every fact of the group from its bytes; g.mu is held.
func (g *lazyGroup) decode() ([]analysis.Fact, error) {
	dec := g.dec.fork()
	vals := make([]analysis.Fact, len(g.types))
	for i, t := range g.types {
		f := reflect.New(t.Elem()).Interface().(analysis.Fact)
		if err := dec.decode(f); err != nil {
			return nil, err
		}
		vals[i] = f
	}
	return vals, nil
}

// setLazy adds the facts of a group under their keys, replacing those
// there, with the digests their entry kept.
func (s *factStore) setLazy(keys []factKey, g *lazyGroup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lazy == nil {
		s.lazy = map[factKey]lazyRef{}
	}
	if s.digests == nil {
		s.digests = map[factKey]string{}
	}
	for i, k := range keys {
		s.index(k)
		delete(s.m, k)
		s.lazy[k] = lazyRef{g, i}
		if g.digests[i] != "" {
			s.digests[k] = g.digests[i]
		} else {
			delete(s.digests, k)
		}
	}
}
