package explain

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// How a logged statement matches a site.
const (
	// MatchFingerprint: the same pg_query fingerprint (the same
	// statement up to constants, parameters, case and spacing).
	MatchFingerprint = "fingerprint"
	// MatchPart: the same fingerprint as one statement of a site's
	// multi-statement string (a log shows the statement that waited).
	MatchPart = "part"
	// MatchShape: the same kinds of statement on the same tables (an
	// ORM's rendering, another spelling of the same statement).
	MatchShape = "tables"
)

// index finds the sites that run a statement.
type index struct {
	sites   []lockseq.Site
	byFP    map[string][]int
	byPart  map[string][]int
	byShape map[string][]int
	shapes  []lockmodel.Shape
	// dynamic are the sites whose text is built at run time.
	dynamic []int
	// schema is the schema shapes are computed with.
	schema *lockmodel.Schema
}

func newIndex(sites []lockseq.Site, schema *lockmodel.Schema) *index {
	ix := &index{schema: schema, byFP: map[string][]int{}, byPart: map[string][]int{}, byShape: map[string][]int{}}
	seen := map[lockseq.Site]bool{}
	for _, s := range sites {
		// A package and its test variant share sites.
		if seen[s] {
			continue
		}
		seen[s] = true
		i := len(ix.sites)
		ix.sites = append(ix.sites, s)
		ix.shapes = append(ix.shapes, lockmodel.Shape{})
		if s.Dynamic {
			ix.dynamic = append(ix.dynamic, i)
			continue
		}
		if fp, err := lockmodel.Fingerprint(s.SQL); err == nil {
			ix.byFP[fp] = append(ix.byFP[fp], i)
		}
		if parts, err := lockmodel.Split(s.SQL); err == nil && len(parts) > 1 {
			for _, part := range parts {
				if fp, err := lockmodel.Fingerprint(part); err == nil {
					ix.byPart[fp] = append(ix.byPart[fp], i)
				}
			}
		}
		if sh, err := ix.schema.ShapeOf(s.SQL); err == nil {
			ix.shapes[i] = sh
			ix.byShape[sh.Key()] = append(ix.byShape[sh.Key()], i)
		}
	}
	return ix
}

// hit is a site matching a statement.
type hit struct {
	site  int
	match string
}

// match returns the sites that run stmt, exact fingerprints first; err
// says why the statement could not be read.
func (ix *index) match(stmt string) ([]hit, lockmodel.Shape, error) {
	fp, err := lockmodel.Fingerprint(stmt)
	if err != nil {
		return nil, lockmodel.Shape{}, err
	}
	shape, _ := ix.schema.ShapeOf(stmt)
	var out []hit
	seen := map[int]bool{}
	for _, i := range ix.byFP[fp] {
		out = append(out, hit{i, MatchFingerprint})
		seen[i] = true
	}
	for _, i := range ix.byPart[fp] {
		if !seen[i] {
			out = append(out, hit{i, MatchPart})
			seen[i] = true
		}
	}
	if len(shape.Tables) > 0 {
		for _, i := range ix.byShape[shape.Key()] {
			if !seen[i] {
				out = append(out, hit{i, MatchShape})
			}
		}
	}
	return out, shape, nil
}

// rank orders hits: exact matches first, then sites where a path waits
// for the very lock the log names, then sites with any path (a deadlock
// needs a lock held from before), then sites in a transaction, then by
// position, sites in _test.go files after the others. paths scores a site: 2 for a path waiting for the logged lock,
// 1 for any path, 0 for none.
func (ix *index) rank(hits []hit, paths func(pos string) int) {
	slices.SortStableFunc(hits, func(a, b hit) int {
		sa, sb := ix.sites[a.site], ix.sites[b.site]
		return cmp.Or(
			cmp.Compare(rankOf(a.match != MatchShape), rankOf(b.match != MatchShape)),
			// A production log comes from production code: tests last.
			cmp.Compare(rankOf(!isTestFile(sa.Pos)), rankOf(!isTestFile(sb.Pos))),
			cmp.Compare(paths(sb.Pos), paths(sa.Pos)),
			cmp.Compare(rankOf(sa.Tx), rankOf(sb.Tx)),
			cmp.Compare(sa.Pos, sb.Pos),
		)
	})
}

func rankOf(b bool) int {
	if b {
		return 0
	}
	return 1
}

// isTestFile reports whether a site's position is in a _test.go file.
func isTestFile(pos string) bool {
	file, _, _ := strings.Cut(pos, ".go:")
	return strings.HasSuffix(file, "_test")
}
