package sqlsite_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// build type-checks src as package example.com/p and builds its SSA.
func build(t *testing.T, src string) *ssa.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	conf := &types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, _, err := ssautil.BuildPackage(conf, fset, types.NewPackage("example.com/p", "p"), []*ast.File{f},
		ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatalf("build SSA: %v", err)
	}
	return pkg
}

// function returns the package function or method-less closure named name
// ("F", or "F$1" for F's first function literal).
func function(t *testing.T, pkg *ssa.Package, name string) *ssa.Function {
	t.Helper()
	var find func(fns []*ssa.Function) *ssa.Function
	find = func(fns []*ssa.Function) *ssa.Function {
		for _, fn := range fns {
			if fn.Name() == name {
				return fn
			}
			if f := find(fn.AnonFuncs); f != nil {
				return f
			}
		}
		return nil
	}
	var top []*ssa.Function
	for _, m := range pkg.Members {
		if fn, ok := m.(*ssa.Function); ok {
			top = append(top, fn)
		}
	}
	if fn := find(top); fn != nil {
		return fn
	}
	t.Fatalf("no function %s in %s", name, pkg.Pkg.Path())
	return nil
}

// calls returns the calls in fn to a function or method named callee, in
// block order.
func calls(fn *ssa.Function, callee string) []*ssa.CallCommon {
	var out []*ssa.CallCommon
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			ci, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			c := ci.Common()
			var name string
			switch {
			case c.IsInvoke():
				name = c.Method.Name()
			case c.StaticCallee() != nil:
				name = c.StaticCallee().Name()
			}
			if name == callee {
				out = append(out, c)
			}
		}
	}
	return out
}

// onlyCall returns the one call in function fn to callee.
func onlyCall(t *testing.T, pkg *ssa.Package, fn, callee string) *ssa.CallCommon {
	t.Helper()
	cs := calls(function(t, pkg, fn), callee)
	if len(cs) != 1 {
		t.Fatalf("%s calls %s %d times, want 1", fn, callee, len(cs))
	}
	return cs[0]
}
