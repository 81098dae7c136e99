// Command pglockorder-corpus writes a synthetic Go module for measuring
// pglockorder against go vet: hundreds of packages and tens of thousands of
// functions, a share of them running SQL through pgx v5 and database/sql in
// transactions with helpers across packages (sqlc-like Queries on a DBTX
// interface, database/sql repositories, a transaction wrapper), the rest
// ordinary code, and a known number of planted lock-order inversions.
//
// The output depends only on the flags, so that runs at one size can be
// compared across commits:
//
//	pglockorder-corpus -o /tmp/corpus -packages 400 -funcs 60
//
// It prints one line describing what it wrote (packages, functions, lines,
// planted inversions) for the benchmark script to read.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pglockorder-corpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	out := fs.String("o", "", "write the module into `dir` (created; must be empty or absent)")
	fs.IntVar(&cfg.Packages, "packages", 200, "number of packages")
	fs.IntVar(&cfg.Funcs, "funcs", 50, "functions per package")
	fs.IntVar(&cfg.SQLShare, "sqlshare", 30, "percentage of the packages that run SQL")
	fs.IntVar(&cfg.Planted, "planted", 4, "number of lock-order inversions to plant")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the pseudo-random choices")
	fs.StringVar(&cfg.GoSum, "gosum", "", "copy this go.sum into the module (it must cover pgx v5.12.0)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: pglockorder-corpus -o dir [-packages N] [-funcs N] [-sqlshare PCT] [-planted N] [-seed N] [-gosum file]")
		return 2
	}
	st, err := Generate(*out, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pglockorder-corpus: %v\n", err)
		if errors.Is(err, errConfig) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stdout, "packages=%d sqlpackages=%d functions=%d lines=%d planted=%d\n",
		st.Packages, st.SQLPackages, st.Functions, st.Lines, st.Planted)
	return 0
}
