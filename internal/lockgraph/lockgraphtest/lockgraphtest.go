// Package lockgraphtest builds lock-graph values from short text for tests:
// a class from its text form and a position from "file:line:col". The
// analysis itself never parses either back from text.
package lockgraphtest

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// Class returns the class whose text form (lockgraph.Class.String) is text:
// "row:T", "table:T", "advisory:KEY" or "advisory@SITE". It panics on any
// other text: a test's own typo.
func Class(text string) lockgraph.Class {
	if site, ok := strings.CutPrefix(text, "advisory@"); ok {
		return lockgraph.AdvisoryAt(site)
	}
	kind, name, _ := strings.Cut(text, ":")
	switch kind {
	case "row":
		return lockgraph.RowsOf(name)
	case "table":
		return lockgraph.TableOf(name)
	case "advisory":
		key, site, _ := strings.Cut(name, "|@")
		return lockgraph.AdvisoryOf(key, site)
	}
	panic(fmt.Sprintf("lockgraphtest: not a lock class: %q", text))
}

// Position parses "file:line:col" (the file name may contain colons). It
// panics on any other text.
func Position(text string) token.Position {
	i := strings.LastIndexByte(text, ':')
	j := strings.LastIndexByte(text[:max(i, 0)], ':')
	p := token.Position{Filename: text[:max(j, 0)]}
	if i < 0 || j < 0 {
		panic(fmt.Sprintf("lockgraphtest: not a position: %q", text))
	}
	if _, err := fmt.Sscanf(text[j+1:], "%d:%d", &p.Line, &p.Column); err != nil {
		panic(fmt.Sprintf("lockgraphtest: not a position: %q: %v", text, err))
	}
	return p
}
