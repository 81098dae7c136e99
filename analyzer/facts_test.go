package analyzer_test

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// maxFactBytes caps the encoded size of one fact: go vet writes every fact
// of every dependency into each package's vetx file.
const maxFactBytes = 256 << 10

// TestFactCodec round-trips every fact the corpus produces through gob, the
// codec go vet uses between processes, and checks that the encoding is
// deterministic, lossless and small.
func TestFactCodec(t *testing.T) {
	downloadModules(t, corpus)
	results := analysistest.Run(t, corpus, analyzer.CorpusAnalyzer, "./...")
	n := 0
	for _, r := range results {
		if r.Action == nil {
			continue
		}
		var facts []analysis.Fact
		for _, f := range r.Action.AllObjectFacts() {
			if f.Object.Pkg() == r.Action.Package.Types {
				facts = append(facts, f.Fact)
			}
		}
		for _, f := range r.Action.AllPackageFacts() {
			if f.Package == r.Action.Package.Types {
				facts = append(facts, f.Fact)
			}
		}
		for _, f := range facts {
			n++
			roundTrip(t, r.Action.Package.PkgPath, f)
		}
	}
	if n == 0 {
		t.Fatal("the corpus produced no facts")
	}
}

func roundTrip(t *testing.T, pkg string, f analysis.Fact) {
	t.Helper()
	encode := func(f analysis.Fact) []byte {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(f); err != nil {
			t.Fatalf("encoding %T: %v", f, err)
		}
		return buf.Bytes()
	}
	first := encode(f)
	if second := encode(f); !bytes.Equal(first, second) {
		t.Errorf("%T: encoding is not deterministic", f)
	}
	if len(first) > maxFactBytes {
		t.Errorf("%s: %T: %d bytes encoded, more than %d", pkg, f, len(first), maxFactBytes)
	}
	decoded := reflect.New(reflect.TypeOf(f).Elem()).Interface().(analysis.Fact)
	if err := gob.NewDecoder(bytes.NewReader(first)).Decode(decoded); err != nil {
		t.Fatalf("decoding %T: %v", f, err)
	}
	if !reflect.DeepEqual(normalize(f), normalize(decoded)) {
		t.Errorf("%T changed in a round trip:\n got %v\nwant %v", f, decoded, f)
	}
}

// normalize re-encodes a fact so that nil and empty slices, which gob does
// not tell apart, compare equal.
func normalize(f analysis.Fact) any {
	var buf bytes.Buffer
	_ = gob.NewEncoder(&buf).Encode(f)
	out := reflect.New(reflect.TypeOf(f).Elem()).Interface()
	_ = gob.NewDecoder(&buf).Decode(out)
	return out
}
