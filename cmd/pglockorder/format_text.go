package main

import (
	"fmt"
	"io"
	"strings"
)

// ANSI escapes of the text format's colours.
const (
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiReset = "\x1b[0m"
)

// writeText prints findings as go vet does, "file:line:col: message". With
// color, the position is bold, the headline red and the fix green; only on
// a terminal (see gate.check), so logs and pipes get plain text.
func writeText(w io.Writer, findings []finding, color bool) error {
	for _, f := range findings {
		var err error
		if !color {
			_, err = fmt.Fprintf(w, "%s: %s\n", f.Posn, f.Message)
		} else {
			_, err = fmt.Fprintf(w, "%s%s:%s %s\n", ansiBold, f.Posn, ansiReset, colorMessage(f.Message))
		}
		if err != nil {
			return fmt.Errorf("writing findings: %w", err)
		}
	}
	return nil
}

func colorMessage(msg string) string {
	lines := strings.Split(msg, "\n")
	lines[0] = ansiRed + lines[0] + ansiReset
	for i, l := range lines[1:] {
		if rest, ok := strings.CutPrefix(l, "  fix: "); ok {
			lines[i+1] = "  " + ansiGreen + "fix:" + ansiReset + " " + rest
		}
	}
	return strings.Join(lines, "\n")
}
