package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBuilderRunTimeCommand runs the command with -debug on query builder
// code whose statements the models cannot rebuild, as a user would: a go-jet
// statement a helper is given, and a squirrel helper whose table is a
// field set at run time. Each is counted as text built at run time, with
// the reason, instead of being dropped without a word.
func TestBuilderRunTimeCommand(t *testing.T) {
	bin := buildTool(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "libs"))
	if err != nil {
		t.Fatal(err)
	}
	download(t, dir)
	_, stderr, code := runTool(t, dir, bin, "-cache=false", "-debug", "./jetjobs", "./sqjobs/tableparam")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d (the inversions of both packages)\n%s", code, exitFindings, stderr)
	}
	for _, want := range []string{
		"jetjobs/jetjobs.go:139:28: some query text here is built at run time and was not analysed: a go-jet statement the model cannot rebuild",
		"sqjobs/tableparam/tableparam.go:100:18: some query text here is built at run time and was not analysed: parameter table of tableparam.adjust is field table of a struct, which is set at run time",
		"2 query texts are built at run time",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-debug does not say %q:\n%s", want, stderr)
		}
	}
}
