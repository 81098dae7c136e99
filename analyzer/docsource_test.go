package analyzer

import (
	"strings"
	"testing"
)

// TestAnalyzerDoc checks that the analyzer's Doc is doc.go's section: a
// summary line in the x/tools style (lower case, no period, short) and the
// rest of the documentation after it.
func TestAnalyzerDoc(t *testing.T) {
	first, rest, _ := strings.Cut(Analyzer.Doc, "\n")
	if first != "report PostgreSQL lock-order inversions that can deadlock" {
		t.Errorf("first line of Doc = %q", first)
	}
	if len(first) > 60 || strings.HasSuffix(first, ".") || strings.ToLower(first[:1]) != first[:1] {
		t.Errorf("first line of Doc %q: want lower case, no period, under 60 characters", first)
	}
	for _, want := range []string{"unordered-row-lock", "ignore-directive", "whole program at once"} {
		if !strings.Contains(rest, want) {
			t.Errorf("Doc does not contain %q", want)
		}
	}
	if strings.Contains(Analyzer.Doc, "//") && !strings.Contains(Analyzer.Doc, "//pglockorder:ignore") {
		t.Error("Doc kept comment markers")
	}
}

func TestAnalyzerDocSections(t *testing.T) {
	src := "// Package p does things.\n//\n// # Analyzer x\n//\n// x: check things\n//\n// More text.\n//\n// # Analyzer y\n//\n// y: other things\npackage p\n"
	if got, want := analyzerDoc(src, "x"), "check things\n\nMore text."; got != want {
		t.Errorf("analyzerDoc = %q, want %q", got, want)
	}
	if got, want := analyzerDoc(src, "y"), "other things"; got != want {
		t.Errorf("analyzerDoc(y) = %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("analyzerDoc of a file without the section did not panic")
		}
	}()
	analyzerDoc("// Package p.\npackage p\n", "x")
}
