package lockseq

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SkipReason says why SQL the analysis found was not turned into locks.
// Every reason is listed in skipReasons, which is all a new one (a dialect
// that is not PostgreSQL, say) needs to be counted and described.
type SkipReason string

// The reasons SQL is skipped.
const (
	// SkipUnparsable is SQL text that PostgreSQL's parser rejects.
	SkipUnparsable SkipReason = "unparsable"
	// SkipRuntime is query text (or a part of it) built at run time.
	SkipRuntime SkipReason = "runtime"
	// SkipDialect is SQL of another database (MySQL, SQLite, ...).
	SkipDialect SkipReason = "dialect"
)

// skipReasons describes each reason for the end-of-run count, in the order
// the count lists them: the singular and plural of what is counted, and
// what happened to it.
var skipReasons = []struct {
	reason       SkipReason
	one, several string
}{
	{SkipUnparsable, "SQL string could not be parsed", "SQL strings could not be parsed"},
	{SkipRuntime, "query text is built at run time", "query texts are built at run time"},
	{SkipDialect, "SQL statement is another database's (not PostgreSQL)", "SQL statements are another database's (not PostgreSQL)"},
}

// Skip is one place where SQL was not analysed.
type Skip struct {
	Reason SkipReason
	// Posn is the call's "file:line:col".
	Posn string
	// Detail says more for -debug (the parser's error).
	Detail string
}

// String is the -debug line for the skip.
func (s Skip) String() string {
	switch s.Reason {
	case SkipUnparsable:
		return fmt.Sprintf("%s: skipping SQL that does not parse: %s", s.Posn, s.Detail)
	case SkipRuntime:
		if s.Detail != "" {
			return s.Posn + ": some query text here is built at run time and was not analysed: " + s.Detail
		}
		return s.Posn + ": some query text here is built at run time and was not analysed"
	case SkipDialect:
		return fmt.Sprintf("%s: skipping SQL that is not PostgreSQL (%s)", s.Posn, s.Detail)
	}
	if s.Detail != "" {
		return fmt.Sprintf("%s: SQL skipped (%s): %s", s.Posn, s.Reason, s.Detail)
	}
	return fmt.Sprintf("%s: SQL skipped (%s)", s.Posn, s.Reason)
}

// CountSkips describes the skips by reason, once per place:
// "3 SQL strings could not be parsed, 1 query text is built at run time";
// "" when nothing was skipped.
func CountSkips(skips []Skip) string {
	counts := map[SkipReason]int{}
	for _, s := range UniqueSkips(skips) {
		counts[s.Reason]++
	}
	var parts []string
	for _, r := range skipReasons {
		switch n := counts[r.reason]; n {
		case 0:
		case 1:
			parts = append(parts, "1 "+r.one)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, r.several))
		}
		delete(counts, r.reason)
	}
	// A reason without a description still counts.
	for _, r := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d SQL skipped (%s)", counts[r], r))
	}
	return joinList(parts)
}

// UniqueSkips sorts skips by position and reason and drops repeats (a
// package and its test variant share files).
func UniqueSkips(skips []Skip) []Skip {
	out := slices.Clone(skips)
	slices.SortFunc(out, func(a, b Skip) int {
		return cmp.Or(cmp.Compare(a.Posn, b.Posn), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Detail, b.Detail))
	})
	return slices.CompactFunc(out, func(a, b Skip) bool { return a.Posn == b.Posn && a.Reason == b.Reason })
}

// skip records SQL that is not analysed, once per place and reason (the
// fixpoint visits a site many times).
func (a *Analysis) skip(s Skip) {
	key := string(s.Reason) + "\x00" + s.Posn
	if a.skipSeen[key] {
		return
	}
	a.skipSeen[key] = true
	a.Skipped = append(a.Skipped, s)
}

// joinList joins "a", "b" and "c" as "a, b and c".
func joinList(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
