package main

import (
	"fmt"
	"io"

	"github.com/pglockorder/pglockorder/analyzer/lockgraph"
	"github.com/pglockorder/pglockorder/analyzer/repro"
)

// reproUsage documents the -repro flag.
const reproUsage = "after the findings, print for each cycle a shell script that reproduces it with psql on a scratch database"

// printRepro writes the reproducer of each cycle (see package repro).
func printRepro(w io.Writer, cycles []*lockgraph.Cycle, rel func(string) string) error {
	for i, c := range cycles {
		if _, err := fmt.Fprintf(w, "\n# ---- reproducer %d of %d: save from here as repro-%d.sh\n", i+1, len(cycles), i+1); err != nil {
			return fmt.Errorf("writing reproducer: %w", err)
		}
		if err := repro.Render(w, i+1, repro.Build(c, rel)); err != nil {
			return err
		}
	}
	return nil
}
