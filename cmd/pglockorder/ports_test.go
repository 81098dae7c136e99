package main

import (
	"regexp"
	"slices"
	"testing"
)

// methodDeclRE is the expression appendMethodDecls implements by hand.
var methodDeclRE = regexp.MustCompile(`(?m)^func\s*\([^)]*\)\s*([\p{L}_][\p{L}\p{N}_]*)\s*[\[(]`)

func methodDeclsRE(src []byte) []string {
	var out []string
	for _, m := range methodDeclRE.FindAllSubmatch(src, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestMethodDecls checks the scanner against the expression on the shapes a
// declaration takes, and on what looks like one but is not.
func TestMethodDecls(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"package p\nfunc (s *Store) Exec(ctx context.Context) error {}\n", []string{"Exec"}},
		{"func(s Store)Get()\nfunc (s Store) Set[T any]()", []string{"Get", "Set"}},
		{"func (s\n*Store) Multi\t(\n)", []string{"Multi"}},
		{"func F() {}\n  func (s S) Indented() {}\n", nil},
		{"func (s S) Ünïcode9() {}\nfunc (s S) _x()", []string{"Ünïcode9", "_x"}},
		{"func (s S) 9bad() {}\nfunc (s S) ok ()", []string{"ok"}},
		{"func (s S) NoParen\nfunc (s S) Next(", []string{"Next"}},
		{"func (\nfunc (s S) Swallowed(", []string{"Swallowed"}},
		{"func (s S) A() { func (t T) B() }\nfunc (u U) C()", []string{"A", "C"}},
		{"func (s S)", nil},
		{"", nil},
		{"\xff\nfunc (s S) X\xffY()", nil},
	} {
		want := methodDeclsRE([]byte(tc.src))
		if !slices.Equal(want, tc.want) {
			t.Fatalf("%q: the expression finds %q, the test expects %q", tc.src, want, tc.want)
		}
		if got := appendMethodDecls(nil, []byte(tc.src)); !slices.Equal(got, want) {
			t.Errorf("%q: scanner finds %q, expression %q", tc.src, got, want)
		}
	}
}

// FuzzMethodDecls checks that the scanner and the expression always agree.
func FuzzMethodDecls(f *testing.F) {
	f.Add([]byte("func (s *S) M() {}\nfunc (s S)N[T any]()\n"))
	f.Add([]byte("func (\nfunc (s S) X("))
	f.Fuzz(func(t *testing.T, src []byte) {
		if got, want := appendMethodDecls(nil, src), methodDeclsRE(src); !slices.Equal(got, want) {
			t.Errorf("%q: scanner finds %q, expression %q", src, got, want)
		}
	})
}
