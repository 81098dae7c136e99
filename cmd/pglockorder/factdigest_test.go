package main

import (
	"bytes"
	"encoding/gob"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
)

// TestFactDigest checks the properties the per-package cache relies on:
// a fact read back from its gob encoding has the digest of the fact
// encoded, and facts that differ have different digests.
func TestFactDigest(t *testing.T) {
	for _, proto := range analyzer.Analyzer.FactTypes {
		typ := reflect.TypeOf(proto).Elem()
		seen := map[[32]byte]bool{}
		for seed := range uint64(20) {
			f := reflect.New(typ)
			lockgraphtest.Fill(rand.New(rand.NewPCG(seed, 1)), f.Elem())
			d, err := factDigest(f.Interface())
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(f.Interface()); err != nil {
				t.Fatal(err)
			}
			back := reflect.New(typ)
			if err := gob.NewDecoder(&buf).Decode(back.Interface()); err != nil {
				t.Fatal(err)
			}
			if d2, _ := factDigest(back.Interface()); d2 != d {
				t.Errorf("%s, seed %d: the fact read back has another digest", typ, seed)
			}
			seen[d] = true
		}
		if len(seen) < 15 {
			t.Errorf("%s: 20 random facts have %d digests", typ, len(seen))
		}
	}
}

// TestFactDigestMaps checks that a map's digest does not depend on its
// order, and that nil and empty differ from a value.
func TestFactDigestMaps(t *testing.T) {
	type fact struct {
		M map[string][]int
		P *int
	}
	one := 1
	a := fact{M: map[string][]int{}, P: &one}
	b := fact{M: map[string][]int{}, P: &one}
	for i := range 50 {
		a.M[string(rune('a'+i))] = []int{i}
	}
	for i := 49; i >= 0; i-- {
		b.M[string(rune('a'+i))] = []int{i}
	}
	da, _ := factDigest(&a)
	db, _ := factDigest(&b)
	if da != db {
		t.Error("equal maps have different digests")
	}
	b.P = nil
	if dn, _ := factDigest(&b); dn == da {
		t.Error("a nil pointer has the digest of a value")
	}
	// What gob reads back as nil has the digest of nil.
	zero := 0
	c := fact{P: &zero}
	dz, _ := factDigest(&c)
	c.P = nil
	if dn, _ := factDigest(&c); dn != dz {
		t.Error("a pointer to 0 and a nil pointer have different digests, but gob stores both as nil")
	}
	if _, err := factDigest(&struct{ F func() }{}); err == nil {
		t.Error("a func field was hashed")
	}
}
