// Command pglockorder reports PostgreSQL lock-order inversions in Go code:
// code paths that take the same row, table or advisory locks in conflicting
// orders, and can therefore deadlock or hang under production timing.
//
// Run on package patterns, it analyses the whole program at once and finds
// cycles across all loaded packages, also between packages that do not
// import each other:
//
//	pglockorder ./...
//
// Run by go vet, it analyses one package at a time and reports what that
// package's import closure shows:
//
//	go vet -vettool=$(which pglockorder) ./...
//
// A package that does not load or type-check costs only itself and the
// packages that import it; the others are analysed, and a summary names
// the packages left out.
//
// Exit status: 0 when nothing is found, 3 when findings are reported, 1
// when, without findings, packages were left out of the analysis (0 with
// -partial), 2 for a usage error or a file named by the user (-config,
// -baseline, -schema, .pglockorder.yaml) that is missing or malformed.
package main

import (
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/pglockorder/pglockorder/analyzer"
)

func main() {
	if vetMode(os.Args[1:]) {
		unitchecker.Main(analyzer.Analyzer)
		return
	}
	os.Exit(profiled(os.Stderr, func() int { return run(os.Args[1:], os.Stdout, os.Stderr) }))
}

// vetMode reports whether go vet is running the command: it asks for the
// version or the flags, or passes a unit configuration file.
func vetMode(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if strings.HasPrefix(args[0], "-V") || args[0] == "-flags" || args[0] == "--flags" {
		return true
	}
	return strings.HasSuffix(args[len(args)-1], ".cfg")
}
