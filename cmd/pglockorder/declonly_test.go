package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestCalledInterfaces checks which interface calls a package type-checked
// in full keeps for its runs type-checked without bodies, and that the
// names kept find the same interfaces again in a package type-checked
// without its bodies.
func TestCalledInterfaces(t *testing.T) {
	const header = `package app

import "io"

type Store interface{ Get(id int) error }

type Pair[T any] interface{ First() T }

var _ io.Reader
`
	tests := []struct {
		name string
		body string
		// want are the calls kept, nil when they cannot all be named.
		want []callRef
	}{
		{"named interfaces of the package, the standard library and the universe", `
func Use(s Store, r io.Reader, err error) {
	_ = s.Get(1)
	_, _ = r.Read(nil)
	_ = err.Error()
	_ = s.Get(2) // once
}`, []callRef{{Obj: "error", Name: "Error"}, {Pkg: "app", Obj: "Store", Name: "Get"}, {Pkg: "io", Obj: "Reader", Name: "Read"}}},
		{"no call through an interface", `
func Use(n int) int { return n + 1 }`, []callRef{}},
		{"an interface literal", `
func Use(c interface{ Close() error }) { _ = c.Close() }`, nil},
		{"an instantiated generic interface", `
func Use(p Pair[int]) int { return p.First() }`, nil},
		{"an interface declared in a function", `
func Use() {
	type closer interface{ Close() error }
	var c closer
	_ = c.Close()
}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := checkApp(t, header+tt.body, false)
			calls, refs := calledInterfaces(full, true)
			if !slices.Equal(refs, tt.want) || (tt.want == nil) != (refs == nil) {
				t.Fatalf("kept %#v, want %#v", refs, tt.want)
			}
			if refs == nil {
				return
			}
			// The same source without bodies: the names find
			// interfaces with the same methods.
			decl := checkApp(t, header+tt.body, true)
			io := decl.Imports["io"]
			c := &checker{
				roots:  map[*packages.Package]bool{decl: true},
				reach:  map[*packages.Package]bool{decl: true},
				export: map[*packages.Package]*types.Package{io: io.Types},
			}
			got, ok := c.resolveCalls(decl, refs)
			if !ok || len(got) != len(refs) {
				t.Fatalf("resolving %v: %v, %v", refs, got, ok)
			}
			for _, g := range got {
				if !slices.ContainsFunc(calls, func(c ifaceCall) bool {
					return c.name == g.name && types.Identical(c.iface, g.iface)
				}) {
					t.Errorf("resolved %s.%s, not among the calls %v", g.iface, g.name, calls)
				}
			}
		})
	}
}

// checkApp type-checks src as package app, its bodies or not, into a
// package whose only import, io, comes from the standard library's export
// data.
func checkApp(t *testing.T, src string, declOnly bool) *packages.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "app.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := &types.Config{Importer: importer.Default(), IgnoreFuncBodies: declOnly}
	pkg, err := conf.Check("app", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	ioPkg := &packages.Package{ID: "io", PkgPath: "io", Name: "io", Types: pkg.Imports()[0]}
	return &packages.Package{ID: "app", PkgPath: "app", Name: "app", Types: pkg, TypesInfo: info,
		Imports: map[string]*packages.Package{"io": ioPkg}}
}
