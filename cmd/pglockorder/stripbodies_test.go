package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// declShape describes a file's syntax outside function bodies, positions
// included: what a check without bodies reads.
func declShape(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			return false
		case *ast.BlockStmt:
			// A body: its braces only.
			out = append(out, fmt.Sprintf("block %d-%d", n.Lbrace, n.Rbrace))
			return false
		case *ast.Ident:
			out = append(out, fmt.Sprintf("%s@%d", n.Name, n.Pos()))
		case *ast.BasicLit:
			out = append(out, fmt.Sprintf("%s@%d", n.Value, n.Pos()))
		default:
			out = append(out, fmt.Sprintf("%T %d-%d", n, n.Pos(), n.End()))
		}
		return true
	})
	return out, nil
}

func checkStripped(t *testing.T, name string, src []byte) {
	t.Helper()
	stripped := stripBodies(src)
	if len(stripped) != len(src) {
		t.Fatalf("%s: %d bytes stripped to %d", name, len(src), len(stripped))
	}
	want, werr := declShape(name, src)
	got, gerr := declShape(name, stripped)
	if werr != nil {
		// An error inside a body is not seen once it is blanked: only
		// packages that were checked whole before are stripped.
		return
	}
	if gerr != nil {
		t.Fatalf("%s: parses, but not once stripped: %v", name, gerr)
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%s: declarations differ once stripped: %s, want %s", name, got[i], want[i])
			}
		}
		t.Fatalf("%s: %d syntax nodes outside bodies once stripped, want %d", name, len(got), len(want))
	}
}

// TestStripBodies checks, on the shapes a signature takes and on real
// files (this module's and a part of the standard library), that blanking
// the bodies leaves the syntax outside them as it was, positions included.
func TestStripBodies(t *testing.T) {
	for i, src := range []string{
		"package p\nfunc f() {\n\tx := 1\n\t_ = x\n}\n",
		"package p\nfunc f() struct{ a int } { return struct{ a int }{1} }\n",
		"package p\nfunc f(x struct{ a int }) interface{ M() } { return nil }\n",
		"package p\nfunc F[T interface{ ~int }](x T) map[string]struct{} { return nil }\n",
		"package p\ntype F func() error\ntype S struct{ f func() }\nfunc g()\nvar v = func() int { return 1 }()\n",
		"package p\nvar m = map[string]func(){\"a\": func() { println() }}\n",
		"package p\nfunc f() {\n\ts := `raw\n{ string`\n\t_ = s\n}\nfunc g() chan struct{} { return nil }\n",
		"package p\n//line x.go:10\nfunc f() { }\n",
		"package p\nfunc f() {",
		"package p\nfunc f() } {",
	} {
		checkStripped(t, fmt.Sprintf("case%d.go", i), []byte(src))
	}
	if got := stripBodies([]byte("package p\nfunc f() { return }\n")); !strings.Contains(string(got), "{        }") {
		t.Errorf("a body was not blanked: %q", got)
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	roots := []string{filepath.Join("..", ".."), filepath.Join(goroot, "src", "go"), filepath.Join(goroot, "src", "net", "http")}
	n, stripped := 0, 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checkStripped(t, path, src)
			n++
			if !bytes.Equal(stripBodies(src), src) {
				stripped++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 500 || stripped < n/2 {
		t.Fatalf("%d files checked, %d of them stripped", n, stripped)
	}
}

// FuzzStripBodies checks that stripping never changes the syntax outside
// the bodies, whatever the source.
func FuzzStripBodies(f *testing.F) {
	f.Add([]byte("package p\nfunc f() struct{} { return struct{}{} }\nvar v = func() {}\n"))
	f.Add([]byte("package p\nfunc (r *T[K]) M(x interface{ N() }) (int, error) {\n\treturn 0, nil\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkStripped(t, "fuzz.go", src)
	})
}
