package analyzer

import (
	"fmt"
	"strings"
)

// analyzerDoc extracts the documentation of analyzer name from the source
// of a doc.go file: the lines of its package comment after the heading
// "# Analyzer name", up to the next heading, with the comment markers removed; the heading's first
// line after it ("name: summary") gives the summary line that go vet
// prints, without the "name: " prefix. It panics when the section is
// missing: the documentation is part of the program, and a test builds it.
func analyzerDoc(src, name string) string {
	var lines []string
	in := false
	for line := range strings.SplitSeq(src, "\n") {
		text, ok := strings.CutPrefix(line, "//")
		if !ok {
			if in {
				break
			}
			continue
		}
		text = strings.TrimPrefix(text, " ")
		if in && strings.HasPrefix(text, "# ") {
			break // the next section
		}
		if strings.TrimSpace(text) == "# Analyzer "+name {
			in = true
			continue
		}
		if in {
			lines = append(lines, text)
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		panic(fmt.Sprintf("doc.go has no %q section", "# Analyzer "+name))
	}
	lines[0] = strings.TrimPrefix(lines[0], name+": ")
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
