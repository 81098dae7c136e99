// Package lockgraphtest builds lock-graph values for tests: a class from
// its text form, a position from "file:line:col", and random edges with
// every field set. The analysis itself never parses a class or a position
// back from text.
package lockgraphtest

import (
	"fmt"
	"go/token"
	"math/rand/v2"
	"reflect"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// Class returns the class whose text form (lockgraph.Class.String) is text:
// "row:T", "table:T", "advisory:KEY" or "advisory@SITE". It panics on any
// other text: a test's own typo.
func Class(text string) lockgraph.Class {
	if site, ok := strings.CutPrefix(text, "advisory@"); ok {
		return lockgraph.AdvisoryAt(site)
	}
	kind, name, _ := strings.Cut(text, ":")
	switch kind {
	case "row":
		return lockgraph.RowsOf(name)
	case "table":
		return lockgraph.TableOf(name)
	case "advisory":
		key, site, _ := strings.Cut(name, "|@")
		return lockgraph.AdvisoryOf(key, site)
	}
	panic(fmt.Sprintf("lockgraphtest: not a lock class: %q", text))
}

// Position parses "file:line:col" (the file name may contain colons). It
// panics on any other text.
func Position(text string) token.Position {
	i := strings.LastIndexByte(text, ':')
	j := strings.LastIndexByte(text[:max(i, 0)], ':')
	p := token.Position{Filename: text[:max(j, 0)]}
	if i < 0 || j < 0 {
		panic(fmt.Sprintf("lockgraphtest: not a position: %q", text))
	}
	if _, err := fmt.Sscanf(text[j+1:], "%d:%d", &p.Line, &p.Column); err != nil {
		panic(fmt.Sprintf("lockgraphtest: not a position: %q: %v", text, err))
	}
	return p
}

// RandomEdges returns n edges whose every field is set, by reflection (a
// field added to the types is filled too), from small pools of strings and
// numbers so that edges share frames, locks and strings as a program's do.
func RandomEdges(r *rand.Rand, n int) []*lockgraph.Edge {
	out := make([]*lockgraph.Edge, n)
	for i := range out {
		e := &lockgraph.Edge{}
		Fill(r, reflect.ValueOf(e).Elem())
		out[i] = e
	}
	return out
}

// Fill sets every exported field of v, and of what it holds, to random
// values from small pools (nil for some slices, maps and pointers), by
// reflection, so that a field added to a type is filled too. It panics on a
// kind it does not know: a test's type to teach it.
func Fill(r *rand.Rand, v reflect.Value) { fillAt(r, v, 0) }

// fillAt fills v, depth levels of slices and pointers down: a recursive type
// stops at nil.
func fillAt(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString([]string{"", "a.go", "pkg.F", "SELECT 1 FOR UPDATE", "accounts", "é\x00x"}[r.IntN(6)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.IntN(300) - 2))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(200)))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAt(r, v.Field(i), depth)
			}
		}
	case reflect.Slice:
		n := r.IntN(4)
		if n == 0 || depth > 4 {
			return // nil, as gob decodes an empty slice
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillAt(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		n := r.IntN(3)
		if n == 0 || depth > 4 {
			return // nil, as gob decodes an empty map
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k, x := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillAt(r, k, depth+1)
			fillAt(r, x, depth+1)
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fillAt(r, p.Elem(), depth+1)
		v.Set(p)
	default:
		panic(fmt.Sprintf("fill: %s", v.Type()))
	}
}
