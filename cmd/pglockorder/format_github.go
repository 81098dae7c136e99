package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// writeGitHub prints findings as GitHub Actions workflow commands: each
// becomes an error annotation on its line in the pull request, the full
// message (both paths, the fix) in the annotation's body.
func writeGitHub(w io.Writer, findings []finding) error {
	for _, f := range findings {
		file, line, col := splitPosn(f.Posn)
		props := "file=" + escapeProperty(filepath.ToSlash(withPathPrefix(file)))
		if line > 0 {
			props += fmt.Sprintf(",line=%d", line)
		}
		if col > 0 {
			props += fmt.Sprintf(",col=%d", col)
		}
		props += ",title=" + escapeProperty("pglockorder: "+f.Category)
		if _, err := fmt.Fprintf(w, "::error %s::%s\n", props, escapeData(f.Message)); err != nil {
			return fmt.Errorf("writing annotations: %w", err)
		}
	}
	return nil
}

// escapeData escapes a workflow command's message, which ends at the line.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value, which also
// ends at a comma or a colon.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
