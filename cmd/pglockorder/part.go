package main

import (
	"fmt"
	"slices"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/findings"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
)

// unitPart is what one package's analysis adds to the run's results, in the
// form the result caches keep: positions as text, no syntax or types.
type unitPart struct {
	Edges    packedEdges
	Ordered  []lockseq.OrderedLock
	Temps    []string
	Ignores  []findings.Directive
	Skipped  []lockseq.Skip
	Locked   []string
	Warnings []string
	Dispatch lockseq.DispatchStats
	Dialect  analyzer.DialectReport
	Findings []findings.Finding
	// Lent and LentKept are the package's calls' verdicts on the lent
	// row findings of other packages (analyzer.Result.Lent).
	Lent, LentKept []string
	// Sites are the package's calls that send SQL (for -v's counts and
	// -explain).
	Sites []lockseq.Site
}

// part returns what the unit adds to the results: its analysis's, or what
// the per-package cache restored.
func (u *unit) part() *unitPart {
	if u.restored != nil {
		return u.restored
	}
	if u.made != nil {
		return u.made
	}
	p := &unitPart{}
	if res, ok := u.result.(*analyzer.Result); ok {
		p.Edges = packedEdges{list: res.Edges}
		p.Ordered = res.Ordered
		p.Temps = res.TempTables
		p.Ignores = res.Ignores
		p.Skipped = res.Skipped
		p.Locked = res.Locked
		p.Warnings = limitWarnings(u.pkg, res.Limits)
		p.Dispatch = res.Dispatch
		p.Dialect = res.Dialect
		p.Sites = res.Sites
		// The findings of the package alone, with the analyzer's own
		// rules; those across packages come at the end of the run.
		p.Findings = analyzer.PackageFindings(res, u.pkg.Fset, u.pkg.PkgPath)
		p.Lent, p.LentKept = res.Lent, res.LentKept
	}
	for _, d := range u.diagnostics {
		// The facts pass reports nothing; should it ever, its
		// diagnostics are findings of the package too.
		f := findings.Finding{Pkg: u.pkg.PkgPath, Pos: u.pkg.Fset.Position(d.Pos), Category: d.Category, Message: d.Message}
		for _, r := range d.Related {
			f.Related = append(f.Related, report.Related{Pos: u.pkg.Fset.Position(r.Pos), Message: r.Message})
		}
		p.Findings = append(p.Findings, f)
	}
	return p
}

// keepPart makes the unit's part of the results as soon as its pass is
// done, and keeps of the analyzer's result only the lookups that the
// per-package cache records: the result holds the package's SSA (a row
// finding names its function), which would otherwise stay alive until the
// run puts the results together.
func (u *unit) keepPart() {
	res, ok := u.result.(*analyzer.Result)
	if !ok || u.err != nil {
		return
	}
	u.made = u.part()
	u.result = &analyzer.Result{Lookups: res.Lookups}
	// Its edges wait for the end of the analysis encoded, as restored
	// ones do: encoded, they take a fraction of the memory, and the
	// per-package cache writes the same bytes.
	if raw, err := u.made.Edges.list.GobEncode(); err == nil {
		u.made.Edges = packedEdges{raw: raw}
	}
}

// add adds a package's part to the results; its edges wait in r.pending
// until unpackEdges.
func (r *cachedResults) add(p *unitPart) {
	r.pending = append(r.pending, p.Edges)
	r.Ordered = append(r.Ordered, p.Ordered...)
	r.Temps = append(r.Temps, p.Temps...)
	r.Ignores = append(r.Ignores, p.Ignores...)
	r.Skipped = append(r.Skipped, p.Skipped...)
	r.Locked = append(r.Locked, p.Locked...)
	r.Warnings = append(r.Warnings, p.Warnings...)
	r.Dispatch.Add(p.Dispatch)
	// What the dialect rules skipped, kept with the results for a
	// cached run's -v.
	r.Dialects.Add(p.Dialect)
	r.Findings = append(r.Findings, p.Findings...)
	if r.lent == nil {
		r.lent = map[string]bool{}
	}
	for _, k := range p.Lent {
		if _, kept := r.lent[k]; !kept {
			r.lent[k] = true
		}
	}
	for _, k := range p.LentKept {
		r.lent[k] = false // one call that leaves it standing is enough
	}
}

// packedEdges are the lock-order edges of one package's part, as its
// analysis made them or encoded (restored from the per-package cache, or
// kept by keepPart). Encoded edges are decoded only once the analysis is
// over and its types are dropped (unpackEdges): decoded, those of a big
// program's restored packages took as much memory as all its types (57 MB
// and 68 MB of hatchet's live heap after an edit), and both were alive at
// once.
type packedEdges struct {
	list lockgraph.EdgeList
	raw  []byte
}

// GobEncode encodes the edges as lockgraph.EdgeList does: the per-package
// cache's files are the same as with an EdgeList.
func (e packedEdges) GobEncode() ([]byte, error) {
	if e.raw != nil {
		return e.raw, nil
	}
	return e.list.GobEncode()
}

// GobDecode keeps a copy of b, to be decoded by edges.
func (e *packedEdges) GobDecode(b []byte) error { //nolint:unparam // gob.GobDecoder's signature; decoding comes later
	e.list, e.raw = nil, slices.Clone(b)
	return nil
}

// edges returns the edges, decoding them if they are encoded. The entry
// they come from passed its checksum: an error here is a bug of the codec.
func (e packedEdges) edges() (lockgraph.EdgeList, error) {
	if e.raw == nil {
		return e.list, nil
	}
	var l lockgraph.EdgeList
	if err := l.GobDecode(e.raw); err != nil {
		return nil, fmt.Errorf("%w: decoding the kept edges: %w", errInternal, err)
	}
	return l, nil
}

// unpackEdges appends the edges of the parts added, in the order they were
// added, to r.Edges.
func (r *cachedResults) unpackEdges() error {
	for i, p := range r.pending {
		l, err := p.edges()
		if err != nil {
			return err
		}
		r.Edges = append(r.Edges, l...)
		r.pending[i] = packedEdges{} // decoded: its bytes can go
	}
	r.pending = nil
	return nil
}
