package analyzer

import (
	"go/token"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/findings"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// PackageFindings returns the findings of one package that need no other
// package: its row-order findings, its session advisory locks on pools, and
// its requests against the declared order. Analyzer reports them per
// package; the pglockorder command calls it for each package of a whole
// program. fset resolves the result's positions.
func PackageFindings(res *Result, fset *token.FileSet, pkg string) []findings.Finding {
	o := findings.Options{Rel: moduleRelative}
	out := findings.Leaks(res.Leaks, fset, pkg, o)
	out = append(out, findings.Rows(res.Rows, fset, pkg, o)...)
	return append(out, declaredOrderFindings(res, fset, pkg)...)
}

// runReport reports the findings of a package and its imports: those of
// the package alone (PackageFindings), and the cycles and row-order
// mismatches with the packages it imports that have a path in it. It
// exports the package's edges and ordered locks, with those of its
// imports, for its importers.
func runReport(pass *analysis.Pass) (res any, err error) {
	defer recoverAsError(pass, &res, &err)
	facts, ok := pass.ResultOf[Facts].(*Result)
	switch {
	case !ok:
		return nil, nil
	case facts.Err != nil:
		return nil, facts.Err
	}
	reportPackage(pass, facts)
	return nil, nil
}

// reportPackage reports the findings of the package whose facts pass gave
// facts (see runReport).
func reportPackage(pass *analysis.Pass, facts *Result) {
	info := &PackageInfo{}
	if !testMain(pass.Pkg) {
		info = importedInfo(pass)
	}
	var fs []findings.Finding
	own := map[string]token.Pos{}
	if facts.HasSQL {
		info.HasSQL = true
		fs = PackageFindings(facts, pass.Fset, pass.Pkg.Path())
		for e, pos := range facts.EdgePos {
			own[edgeID(e)] = pos
		}
		fs = append(fs, programFindings(facts, info, own)...)
		debugSkipped(pass, facts.Skipped)
		debugDispatch(pass, facts.Dispatch)
	}
	if info.HasSQL || len(info.Edges) > 0 || len(info.Ordered) > 0 {
		fact := info
		if pass.Pkg.Name() == "main" {
			// No package imports a command: its fact needs no copy
			// of the edges, which for a command linking a whole
			// monorepo are all of them.
			fact = &PackageInfo{HasSQL: info.HasSQL, TempTables: info.TempTables}
		}
		pass.ExportPackageFact(fact)
		debugFactSize(pass, fact)
	}
	remote := remoteLines(facts.Edges, facts.Ordered)
	fs = findings.Suppress(fs, facts.Ignores, func(d *findings.Directive) bool { return !remote.covers(d) })
	for _, f := range Policy().Enabled(fs) {
		pass.Report(diagnostic(pass, f, own))
	}
}

// programFindings returns the cycles and row-order mismatches that the
// package forms with its imports and that have a path in it, and completes
// info with the package's own edges, ordered locks and temporary tables.
func programFindings(facts *Result, info *PackageInfo, own map[string]token.Pos) []findings.Finding {
	info.Edges = lockgraph.Dedupe(slices.Concat(info.Edges, facts.Edges))
	temps := map[string]bool{}
	for _, t := range slices.Concat(info.TempTables, facts.TempTables) {
		temps[t] = true
	}
	info.TempTables = sortedSet(temps)

	ordered := slices.Concat(info.Ordered, facts.Ordered)
	slices.SortFunc(ordered, func(a, b lockseq.OrderedLock) int { return lockgraph.ComparePositions(a.Pos, b.Pos) })
	ordered = slices.CompactFunc(ordered, func(a, b lockseq.OrderedLock) bool { return a.Pos == b.Pos && a.Table == b.Table })
	info.Ordered = withoutSites(witnesses(ordered))
	ownOrdered := map[token.Position]bool{}
	for _, o := range facts.Ordered {
		ownOrdered[o.Pos] = true
	}

	o := findings.Options{
		Rel:         moduleRelative,
		Here:        func(e *lockgraph.Edge) bool { _, ok := own[edgeID(e)]; return ok },
		HereOrdered: func(l lockseq.OrderedLock) bool { return ownOrdered[l.Pos] },
	}
	cycles := lockgraph.New(lockgraph.WithoutTables(info.Edges, temps)).Cycles(maxCycle)
	return append(findings.Cycles(cycles, o), findings.Mismatches(ordered, o)...)
}

// diagnostic turns a finding into a diagnostic of the pass: its position
// and related positions in the pass's FileSet, and its category's
// documentation link. A cycle's anchor outside the files of the pass (a
// request made in another package's closure) is reported at its edge's
// request in this package.
func diagnostic(pass *analysis.Pass, f findings.Finding, own map[string]token.Pos) analysis.Diagnostic {
	pos := posIn(fileNamed(pass, f.Pos.Filename), f.Pos)
	if !pos.IsValid() && f.Cycle != nil {
		for _, s := range f.Cycle.Steps {
			if p, ok := own[edgeID(s)]; ok && s.Anchor() == f.Pos {
				pos = p
				break
			}
		}
	}
	d := analysis.Diagnostic{Pos: pos, Category: f.Category, Message: f.Message}
	if c, ok := category.Lookup(f.Category); ok {
		d.URL = c.URL()
	}
	if withRelated {
		d.Related = related(pass, f.Related)
	}
	return d
}

// fileNamed returns the file of the pass's FileSet named name, or nil.
func fileNamed(pass *analysis.Pass, name string) *token.File {
	var found *token.File
	pass.Fset.Iterate(func(f *token.File) bool {
		if f.Name() == name {
			found = f
			return false
		}
		return true
	})
	return found
}

// remote holds, by file and line, where a finding could be reported that a
// per-package driver may not see: the anchor of a lock-order edge (a cycle
// whose other paths are in packages this one does not import) and an
// ordered multi-row lock (a row-order mismatch with such a package).
type remote map[string]map[int]bool

// remoteLines records where the package's edges and ordered locks are: a
// finding anchored there may involve packages outside this package's
// imports, which only the whole-program command sees. Only edges that can
// be a step of such a cycle count, so that a directive above the first
// statement of a transaction is still stale for every driver.
func remoteLines(edges []*lockgraph.Edge, ordered []lockseq.OrderedLock) remote {
	r := remote{}
	add := func(pos token.Position) {
		if !pos.IsValid() {
			return
		}
		if r[pos.Filename] == nil {
			r[pos.Filename] = map[int]bool{}
		}
		r[pos.Filename][pos.Line] = true
	}
	for _, e := range edges {
		// A cycle of several packages needs two different locks, the
		// second of which waits; a lock and its own upgrade make a
		// cycle this package sees alone, and the table locks plain DML
		// takes (ROW EXCLUSIVE before the rows of one statement) order
		// nothing.
		if e.Held.Class != e.Wanted.Class && Ordered(e) {
			add(e.Anchor())
		}
	}
	for _, o := range ordered {
		add(o.Pos)
	}
	return r
}

// covers reports whether the directive is on a line, or the line above
// one, where a finding this driver cannot see may be reported.
func (r remote) covers(d *findings.Directive) bool {
	lines := r[d.Pos.Filename]
	return lines[d.Pos.Line] || lines[d.Pos.Line+1]
}
