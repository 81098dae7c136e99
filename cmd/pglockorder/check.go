package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"slices"
	"sync"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// checker type-checks the packages that can run SQL from source and gives
// the types of all others from the compiler's export data.
//
// Several packages may be checked at once (driver.go): reach is filled
// before, by the driver's walk; checked is guarded by checkedMu; and the
// export data, which fills in the shared types.Package of each package
// it names, is read under exportMu, one package at a time, as go/packages
// does.
type checker struct {
	fset      *token.FileSet
	roots     map[*packages.Package]bool
	reach     reachability
	checkedMu sync.Mutex
	checked   map[*packages.Package]*checkOnce
	exportMu  sync.Mutex
	export    map[*packages.Package]*types.Package
	read      map[*packages.Package]bool
	// viewedSource is set when some export data was read against the
	// types of a package checked from source (typesOf): that export
	// data is bound to those types, and must be read again when they
	// are checked again (forget).
	viewedSource bool
	// planning is set while the driver's first pass type-checks the
	// packages to plan the run (driver.go): a package checked in full
	// then records only its method selections, the calls through
	// interfaces the schedule needs, and its files go to planFset, which
	// the run drops with those types.
	planning bool
	planFset *token.FileSet
	// methods are the names of the methods that run a query string.
	methods [][]byte
	// callsOf caches the method names each root's source calls
	// (ports.go).
	callsOf map[*packages.Package]map[string]bool
	// declOnly are the analysed packages that the per-package cache will
	// restore: their function bodies are not type-checked (declonly.go).
	declOnly map[*packages.Package]bool
}

// reachability says which packages can reach SQL (checker.reaches, widened
// by widen): a function of the roots and their source alone. A run works it
// out once and gives it to each checker it makes (the export data's, then
// each start of the analysis): scanning every root's source for it was 4% of
// an edited run's CPU on hatchet when each checker did.
type reachability map[*packages.Package]bool

// reachabilityOf works out the reachability of roots.
func reachabilityOf(roots []*packages.Package) reachability {
	return newChecker(roots, nil).reach
}

// newChecker returns a checker of roots, whose reachability is known when
// not nil (reachabilityOf of the same roots), and worked out otherwise.
func newChecker(roots []*packages.Package, known reachability) *checker {
	c := &checker{
		fset:    token.NewFileSet(),
		roots:   make(map[*packages.Package]bool, len(roots)),
		reach:   map[*packages.Package]bool{},
		checked: map[*packages.Package]*checkOnce{},
		export:  map[*packages.Package]*types.Package{},
		read:    map[*packages.Package]bool{},
	}
	for _, p := range roots {
		c.roots[p] = true
	}
	for _, m := range sqlsite.QueryMethodNames() {
		c.methods = append(c.methods, []byte(m))
	}
	if known != nil {
		// A copy: reaches fills in packages it has not seen, and
		// several checkers may run at once.
		c.reach = maps.Clone(known)
		return c
	}
	c.widen(roots)
	return c
}

// source reports whether p is analysed, and so type-checked from source: it
// is a root that can reach SQL.
func (c *checker) source(p *packages.Package) bool {
	return c.roots[p] && c.reaches(p)
}

// reaches reports whether p can run SQL: it is a database API, imports one
// directly or through other packages, or (for a root) its source mentions a
// method that runs a query string, which a query interface of its own may
// declare, embeds SQL files (a queries package), or calls a method that a
// package that reaches SQL declares (see widen). It errs on the side of
// yes; the analyzer decides exactly.
func (c *checker) reaches(p *packages.Package) bool {
	if r, ok := c.reach[p]; ok {
		return r
	}
	c.reach[p] = false // import cycles are errors reported elsewhere
	r := sqlsite.IsDriverPackage(p.PkgPath) || analyzer.UserRules().IsRulePackage(p.PkgPath)
	for _, imp := range p.Imports {
		if r {
			break
		}
		r = c.reaches(imp)
	}
	if !r && c.roots[p] {
		r = c.mentionsQueryMethod(p) || slices.ContainsFunc(p.EmbedFiles, sqlsite.IsSQLFile) || mentionsCall(p, tableNameMethod)
	}
	c.reach[p] = r
	return r
}

// mentionsQueryMethod reports whether a source file of p names a method
// that runs a query string followed by "(": a call or a declaration.
func (c *checker) mentionsQueryMethod(p *packages.Package) bool {
	return mentionsCall(p, c.methods)
}

// mentionsCall reports whether a source file of p names one of names
// followed by "(": a call or a declaration. Unreadable files count as a
// yes, for the type checker to report.
func mentionsCall(p *packages.Package, names [][]byte) bool {
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return true
		}
		for _, m := range names {
			for rest := src; ; {
				i := bytes.Index(rest, m)
				if i < 0 {
					break
				}
				after := bytes.TrimLeft(rest[i+len(m):], " \t")
				if len(after) > 0 && after[0] == '(' && (i == 0 || !isIdentByte(rest[i-1])) {
					return true
				}
				rest = rest[i+len(m):]
			}
		}
	}
	return false
}

// tableNameMethod is the method an ORM model declares to name its table
// (analyzer.TableNameFact).
var tableNameMethod = [][]byte{[]byte("TableName")}

func isIdentByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b >= 0x80
}

// check parses and type-checks p from source, filling its Fset, Syntax,
// Types and TypesInfo.
//
// The driver checks each package once, after the analysed packages it
// depends on: importers find the result here. Should two callers ask for
// one package at once, the second waits for the first's check: a package
// checked twice would have two types.Package, and its importers would not
// agree on its types.
func (c *checker) check(p *packages.Package) error {
	c.checkedMu.Lock()
	once, ok := c.checked[p]
	if !ok {
		once = &checkOnce{}
		c.checked[p] = once
	}
	c.checkedMu.Unlock()
	once.Do(func() { once.err = c.typecheck(p) })
	return once.err
}

// checkOnce is one package's check, made once.
type checkOnce struct {
	sync.Once
	err error
}

// forget drops the checks of the packages for which keep is false, except
// those that failed, so that the next check of each is made again, against
// the types of its imports at that time. The packages' types are dropped
// too: from then on, only the new ones exist for their importers. So are
// the types read from the export data of packages that import one of them,
// directly or not: that export data was read against the dropped types
// (typesOf). No types that stay refer to dropped ones: a package kept
// imports none that is dropped, or it would be dropped too.
func (c *checker) forget(keep func(*packages.Package) bool) {
	c.checkedMu.Lock()
	defer c.checkedMu.Unlock()
	for p, once := range c.checked {
		if once.err == nil && !keep(p) {
			delete(c.checked, p)
			p.Syntax, p.Types, p.TypesInfo = nil, nil, nil
		}
	}
	c.exportMu.Lock()
	defer c.exportMu.Unlock()
	if !c.viewedSource {
		return
	}
	bound := map[*packages.Package]bool{}
	var boundTo func(q *packages.Package) bool
	boundTo = func(q *packages.Package) bool {
		if b, ok := bound[q]; ok {
			return b
		}
		bound[q] = false // imports have no cycles; this is a guard
		b := false
		for _, imp := range q.Imports {
			if c.source(imp) && !keep(imp) || !c.source(imp) && boundTo(imp) {
				b = true
				break
			}
		}
		bound[q] = b
		return b
	}
	for q := range c.export {
		if boundTo(q) {
			delete(c.export, q)
			delete(c.read, q)
		}
	}
}

func (c *checker) typecheck(p *packages.Package) error {
	declOnly := c.declOnly[p]
	planOnly := c.planning && !declOnly
	fset := c.fset
	if planOnly {
		fset = c.planFset
	}
	files := make([]*ast.File, 0, len(p.CompiledGoFiles))
	for _, name := range p.CompiledGoFiles {
		var src any
		mode := parser.ParseComments | parser.SkipObjectResolution
		if planOnly {
			mode = parser.SkipObjectResolution
		}
		if declOnly {
			// Its declarations only: no comments (the syntax is
			// dropped after the check), no bodies (the check skips
			// them).
			b, err := os.ReadFile(name)
			if err != nil {
				return fmt.Errorf("parsing: %w", err)
			}
			src, mode = stripBodies(b), parser.SkipObjectResolution
		}
		f, err := parser.ParseFile(fset, name, src, mode)
		if err != nil {
			return fmt.Errorf("parsing: %w", err)
		}
		files = append(files, f)
	}
	info := &types.Info{FileVersions: map[*ast.File]string{}}
	switch {
	case planOnly:
		info.Selections = map[*ast.SelectorExpr]*types.Selection{}
	case !declOnly:
		info = &types.Info{
			Types:        map[ast.Expr]types.TypeAndValue{},
			Instances:    map[*ast.Ident]types.Instance{},
			Defs:         map[*ast.Ident]types.Object{},
			Uses:         map[*ast.Ident]types.Object{},
			Implicits:    map[ast.Node]types.Object{},
			Selections:   map[*ast.SelectorExpr]*types.Selection{},
			Scopes:       map[ast.Node]*types.Scope{},
			FileVersions: map[*ast.File]string{},
		}
	}
	var errs []error
	conf := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) { return c.importFrom(p, path) }),
		Sizes:    p.TypesSizes,
		Error:    func(err error) { errs = append(errs, err) },
		// A package the per-package cache restores needs only its
		// declarations: what its importers, its facts and the index
		// of implementations read (declonly.go).
		IgnoreFuncBodies: declOnly,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	pkg, _ := conf.Check(p.PkgPath, fset, files, info)
	if len(errs) > 0 {
		return fmt.Errorf("type-checking: %w", errors.Join(errs...))
	}
	if declOnly {
		p.Fset, p.Syntax, p.Types, p.TypesInfo = fset, nil, pkg, nil
		return nil
	}
	p.Fset, p.Syntax, p.Types, p.TypesInfo = fset, files, pkg, info
	return nil
}

// importFrom returns the package that p imports as path.
func (c *checker) importFrom(p *packages.Package, path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	imp := p.Imports[path]
	if imp == nil {
		return nil, fmt.Errorf("%s does not import %q", p.PkgPath, path)
	}
	return c.typesOf(imp)
}

// typesOf returns the types of p: checked from source for the analysed
// packages, read from export data for the others.
func (c *checker) typesOf(p *packages.Package) (*types.Package, error) {
	if p.PkgPath == "unsafe" {
		return types.Unsafe, nil
	}
	if c.source(p) {
		if err := c.check(p); err != nil {
			return nil, fmt.Errorf("importing %s: %w", p.PkgPath, err)
		}
		return p.Types, nil
	}
	c.exportMu.Lock()
	defer c.exportMu.Unlock()
	if c.read[p] {
		return c.placeholder(p), nil
	}
	// Export data describes what it needs of p's dependencies too: only
	// the packages imported from source code are read. Every package
	// of p's import graph is passed in, empty until read or filled in
	// as far as some export data describes it, so that one package has
	// one types.Package throughout the program.
	view := map[string]*types.Package{}
	var add func(q *packages.Package) error
	add = func(q *packages.Package) error {
		for _, imp := range q.Imports {
			if _, ok := view[imp.PkgPath]; ok || imp.PkgPath == "unsafe" {
				continue
			}
			if c.source(imp) {
				// A test binary's variant of a package that
				// imports analysed ones, built for the tests of a
				// package it imports.
				t, err := c.typesOf(imp)
				if err != nil {
					return err
				}
				c.viewedSource = true
				view[imp.PkgPath] = t
			} else {
				view[imp.PkgPath] = c.placeholder(imp)
			}
			if err := add(imp); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(p); err != nil {
		return nil, err
	}
	view[p.PkgPath] = c.placeholder(p)
	t, err := c.readExport(p, view)
	if err != nil {
		return nil, err
	}
	c.read[p] = true
	return t, nil
}

// placeholder returns the one types.Package of a package seen through
// export data, created empty on first use.
func (c *checker) placeholder(p *packages.Package) *types.Package {
	t, ok := c.export[p]
	if !ok {
		t = types.NewPackage(p.PkgPath, p.Name)
		c.export[p] = t
	}
	return t
}

func (c *checker) readExport(p *packages.Package, view map[string]*types.Package) (*types.Package, error) {
	if p.ExportFile == "" {
		return nil, fmt.Errorf("no export data for %s", p.PkgPath)
	}
	f, err := os.Open(p.ExportFile)
	if err != nil {
		return nil, fmt.Errorf("reading export data of %s: %w", p.PkgPath, err)
	}
	defer f.Close() //nolint:errcheck // read-only file: closing cannot lose data
	// The go command's export files are compiler archives, which only
	// NewReader opens (as go/packages does) until Go 1.29.
	r, err := gcexportdata.NewReader(bufio.NewReader(f)) //nolint:staticcheck // see above
	if err != nil {
		return nil, fmt.Errorf("reading export data of %s: %w", p.PkgPath, err)
	}
	t, err := gcexportdata.Read(r, c.fset, view, p.PkgPath)
	if err != nil {
		return nil, fmt.Errorf("reading export data of %s: %w", p.PkgPath, err)
	}
	return t, nil
}

// importerFunc adapts a function to types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
