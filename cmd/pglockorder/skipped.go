package main

import (
	"fmt"
	"io"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// printSkipped ends the run with one line counting the SQL that was not
// analysed, by reason (lockseq.SkipReason): its locks are missing from the
// lock order, which a user should know without asking. With -debug, each
// place is listed first.
func printSkipped(w io.Writer, skips []lockseq.Skip, debug bool, rel func(string) string) {
	count := lockseq.CountSkips(skips)
	if count == "" {
		return
	}
	if debug {
		for _, s := range lockseq.UniqueSkips(skips) {
			s.Posn = rel(s.Posn)
			fmt.Fprintf(w, "pglockorder: %s\n", s)
		}
		fmt.Fprintf(w, "pglockorder: %s; their locks are not in the analysis\n", count)
		return
	}
	fmt.Fprintf(w, "pglockorder: %s; their locks are not in the analysis (-debug lists them)\n", count)
}
