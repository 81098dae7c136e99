package analyzer

import (
	"go/token"
	"slices"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// withoutSites returns the ordered locks for a fact: without their
// positions in this package's file set (At), which mean nothing elsewhere
// and would make the fact differ from run to run with the order files were
// parsed in.
func withoutSites(ordered []lockseq.OrderedLock) []lockseq.OrderedLock {
	out := slices.Clone(ordered)
	for i := range out {
		out[i].At = token.NoPos
	}
	return out
}

// witnesses keeps one ordered lock per table, order and mode: all a
// mismatch needs, so the package fact stays bounded however many packages
// it gathers.
func witnesses(all []lockseq.OrderedLock) []lockseq.OrderedLock {
	seen := map[string]bool{}
	var kept []lockseq.OrderedLock
	for _, o := range all {
		k := o.Table + "\x00" + o.Order + "\x00" + o.Mode.String()
		if !seen[k] {
			seen[k] = true
			kept = append(kept, o)
		}
	}
	return kept
}
