package main

import (
	"bytes"
	"encoding/gob"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
)

// compactTypes are the types the per-package cache encodes compactly: an
// entry, the kept interface calls, and every fact type.
func compactTypes() []reflect.Type {
	out := []reflect.Type{reflect.TypeFor[*pkgEntry](), reflect.TypeFor[*[]callRef]()}
	for _, f := range analyzer.Facts.FactTypes {
		out = append(out, reflect.TypeOf(f))
	}
	return out
}

// TestCompactFits fails when a type the per-package cache keeps holds
// something the compact encoding does not encode (an interface, a
// function): its entries would not be stored at all.
func TestCompactFits(t *testing.T) {
	for _, typ := range compactTypes() {
		if _, err := codecFor(typ); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
}

// TestCompactRoundTrip fills every exported field of each cached type with
// values drawn from small pools (so that strings and flat structs repeat,
// as in a program's summaries), and checks that the compact encoding
// decodes to what gob decodes: the readers of the cache saw gob's values.
func TestCompactRoundTrip(t *testing.T) {
	for _, typ := range compactTypes() {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 7))
			v := reflect.New(typ.Elem())
			lockgraphtest.Fill(r, v.Elem())

			var e compactEncoder
			if err := e.encode(v.Interface()); err != nil {
				t.Fatalf("%s seed %d: encoding: %v", typ, seed, err)
			}
			got := reflect.New(typ.Elem())
			d := compactDecoder{b: e.buf}
			if err := d.decode(got.Interface()); err != nil {
				t.Fatalf("%s seed %d: decoding: %v", typ, seed, err)
			}
			if d.off != len(e.buf) {
				t.Errorf("%s seed %d: %d of %d bytes read", typ, seed, d.off, len(e.buf))
			}

			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(v.Interface()); err != nil {
				t.Fatalf("%s seed %d: gob: %v", typ, seed, err)
			}
			want := reflect.New(typ.Elem())
			if err := gob.NewDecoder(&buf).Decode(want.Interface()); err != nil {
				t.Fatalf("%s seed %d: gob: %v", typ, seed, err)
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("%s seed %d: compact decodes to\n%+v\ngob to\n%+v", typ, seed, got.Elem(), want.Elem())
			}
			// An entry keeps its facts' digests, taken of the values
			// encoded: the decoded ones must digest the same.
			if f, ok := v.Interface().(analysis.Fact); ok {
				d1, err1 := factDigest(f)
				d2, err2 := factDigest(got.Interface().(analysis.Fact))
				if err1 != nil || err2 != nil || d1 != d2 {
					t.Errorf("%s seed %d: the decoded fact digests differently (%v, %v)", typ, seed, err1, err2)
				}
			}
		}
	}
}

// TestCompactShares checks that repeated strings and flat values are
// written once: a stream of many copies of one value is barely longer than
// one copy.
func TestCompactShares(t *testing.T) {
	type frame struct {
		Func, File string
		Line       int
	}
	one := []frame{{"pkg.Func", "/a/very/long/path/to/a/file.go", 42}}
	many := make([]frame, 1000)
	for i := range many {
		many[i] = one[0]
	}
	var e1, e2 compactEncoder
	if err := e1.encode(&one); err != nil {
		t.Fatal(err)
	}
	if err := e2.encode(&many); err != nil {
		t.Fatal(err)
	}
	if len(e2.buf) > len(e1.buf)+1000+2 {
		t.Errorf("1000 copies take %d bytes, one takes %d: copies are not shared", len(e2.buf), len(e1.buf))
	}
	var back []frame
	d := compactDecoder{b: e2.buf}
	if err := d.decode(&back); err != nil || !reflect.DeepEqual(back, many) {
		t.Errorf("decoded %d frames, err %v", len(back), err)
	}
}

// TestCompactUnsupported checks that a type holding an interface is
// refused, not half encoded.
func TestCompactUnsupported(t *testing.T) {
	type withAny struct{ V any }
	var e compactEncoder
	if err := e.encode(&withAny{V: 1}); err == nil {
		t.Error("a struct with an interface field was encoded")
	}
}

// TestCompactFileDamaged checks that every truncation and many corruptions
// of an entry file are a miss (false), never a panic or a half entry.
func TestCompactFileDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	e := &pkgEntry{}
	lockgraphtest.Fill(r, reflect.ValueOf(e).Elem())
	e.Part = &unitPart{Edges: packedEdges{list: lockgraphtest.RandomEdges(r, 20)}}
	name := filepath.Join(t.TempDir(), "entry")
	if err := writeCompactFile(name, e); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var back pkgEntry
	if !readCompactFile(name, &back) {
		t.Fatal("the intact file was not read back")
	}
	if edges, err := back.Part.Edges.edges(); err != nil || len(edges) != 20 {
		t.Fatalf("the intact file's edges: %d, %v; want 20", len(edges), err)
	}
	for n := range len(full) {
		if err := os.WriteFile(name, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		var got pkgEntry
		if readCompactFile(name, &got) {
			t.Fatalf("a file cut to %d of %d bytes was read", n, len(full))
		}
	}
	for range 2000 {
		b := bytes.Clone(full)
		b[1+r.IntN(len(b)-1)] = byte(r.IntN(256))
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var got pkgEntry
		readCompactFile(name, &got) // must not panic; a change may still decode
	}
}

// FuzzCompactDecode checks that decoding arbitrary bytes as an entry or a
// summary fails or succeeds, never panics.
func FuzzCompactDecode(f *testing.F) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 3))
		e := &pkgEntry{}
		lockgraphtest.Fill(r, reflect.ValueOf(e).Elem())
		var enc compactEncoder
		if err := enc.encode(e); err != nil {
			f.Fatal(err)
		}
		f.Add(enc.buf)
	}
	f.Add([]byte{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, typ := range compactTypes() {
			d := compactDecoder{b: b}
			_ = d.decode(reflect.New(typ.Elem()).Interface())
		}
	})
}

// TestPackedEdges checks that restored edges, kept encoded until the
// results are put together, encode as the edges they were made from, and
// decode to them.
func TestPackedEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	made := packedEdges{list: lockgraphtest.RandomEdges(r, 50)}
	want, err := made.list.GobEncode()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "entry")
	if err := writeCompactFile(name, &pkgEntry{Part: &unitPart{Edges: made}}); err != nil {
		t.Fatal(err)
	}
	var back pkgEntry
	if !readCompactFile(name, &back) {
		t.Fatal("the entry was not read back")
	}
	if back.Part.Edges.list != nil || back.Part.Edges.raw == nil {
		t.Fatal("restored edges decoded before they are asked for")
	}
	again, err := back.Part.Edges.GobEncode()
	if err != nil || !bytes.Equal(again, want) {
		t.Errorf("restored edges encode differently (%v)", err)
	}
	got, err := back.Part.Edges.edges()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, made.list) {
		t.Error("restored edges decode to other edges")
	}
	res := &cachedResults{}
	res.add(&unitPart{Edges: made})
	res.add(back.Part)
	if err := res.unpackEdges(); err != nil || len(res.Edges) != 100 || res.pending != nil {
		t.Errorf("unpacked %d edges (%v), %d pending; want 100, none", len(res.Edges), err, len(res.pending))
	}
	if _, err := (packedEdges{raw: []byte{0xff, 0xff, 0xff}}).edges(); err == nil {
		t.Error("damaged edges decoded without an error")
	}
}
