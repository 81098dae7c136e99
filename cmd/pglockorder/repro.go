package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/repro"
)

// reproUsage documents the -repro flag.
const reproUsage = "after the findings, print for each cycle a shell script that reproduces it with psql on a scratch database"

// printRepro writes the reproducer of each cycle (see package repro).
func printRepro(w io.Writer, cycles []*lockgraph.Cycle, rel func(string) string) error {
	for i, c := range cycles {
		if _, err := fmt.Fprintf(w, "\n# ---- reproducer %d of %d: save from here as repro-%d.sh\n", i+1, len(cycles), i+1); err != nil {
			return fmt.Errorf("writing reproducer: %w", err)
		}
		if err := repro.Render(w, i+1, repro.Build(c, analyzer.FlagSchema(), rel)); err != nil {
			return err
		}
	}
	return nil
}

// reproFlag is -repro: off, scripts on standard output after the findings
// (-repro), or one file per cycle in a directory (-repro=DIR), which leaves
// standard output to the findings, a graph or a suggested order.
type reproFlag struct {
	on  bool
	dir string
}

func (r *reproFlag) String() string {
	switch {
	case r == nil || !r.on:
		return "false"
	case r.dir != "":
		return r.dir
	}
	return "true"
}

// Set takes true and false, as for a boolean flag, or a directory.
func (r *reproFlag) Set(s string) error {
	switch s {
	case "", "false":
		*r = reproFlag{}
	case "true":
		*r = reproFlag{on: true}
	default:
		*r = reproFlag{on: true, dir: s}
	}
	return nil
}

// IsBoolFlag lets -repro stand alone, as a boolean flag does.
func (r *reproFlag) IsBoolFlag() bool { return true }

// check rejects scripts on standard output where it carries something else
// a program reads: a graph, an order, JSON, SARIF or annotations.
func (r *reproFlag) check(g *gate) error {
	if !r.on || r.dir != "" {
		return nil
	}
	switch {
	case g.graph != "":
		return errors.New("-repro prints shell scripts on standard output, where -graph prints the graph: write them to files with -repro=DIR")
	case g.suggestOrder:
		return errors.New("-repro prints shell scripts on standard output, where -suggest-order prints the order: write them to files with -repro=DIR")
	case g.format != "text":
		return fmt.Errorf("-repro prints shell scripts on standard output, where -format=%s prints the findings: write them to files with -repro=DIR", g.format)
	}
	return nil
}

// write prints the reproducers after the findings, or writes them to the
// directory as repro-1.sh, repro-2.sh, ..., saying so on stderr.
func (r *reproFlag) write(stdout, stderr io.Writer, cycles []*lockgraph.Cycle, rel func(string) string) error {
	if r.dir == "" {
		return printRepro(stdout, cycles, rel)
	}
	if len(cycles) == 0 {
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return fmt.Errorf("-repro: %w", err)
	}
	for i, c := range cycles {
		var b bytes.Buffer
		if err := repro.Render(&b, i+1, repro.Build(c, analyzer.FlagSchema(), rel)); err != nil {
			return err
		}
		name := filepath.Join(r.dir, fmt.Sprintf("repro-%d.sh", i+1))
		if err := os.WriteFile(name, b.Bytes(), 0o755); err != nil { //nolint:gosec // a script the user runs
			return fmt.Errorf("-repro: %w", err)
		}
	}
	names := "repro-1.sh"
	if len(cycles) > 1 {
		names = fmt.Sprintf("repro-1.sh to repro-%d.sh", len(cycles))
	}
	fmt.Fprintf(stderr, "pglockorder: %d reproducer script(s) written to %s: %s\n", len(cycles), r.dir, names)
	return nil
}
