package sqlsite

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzEmbedPatterns checks the reader of //go:embed lines: it never panics,
// and the patterns it returns, written back quoted, read the same.
func FuzzEmbedPatterns(f *testing.F) {
	for _, s := range []string{"sql/*.sql", `a.sql "b c.sql" ` + "`d.sql`", `"unterminated`, `"esc\"aped.sql" x`, "all:static", "  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		pats, ok := embedPatterns(line)
		if !ok {
			return
		}
		quoted := make([]string, len(pats))
		for i, p := range pats {
			quoted[i] = strconv.Quote(p)
		}
		again, ok := embedPatterns(strings.Join(quoted, " "))
		if !ok || !slices.Equal(again, pats) {
			t.Errorf("%q: patterns %q read back as %q (%t)", line, pats, again, ok)
		}
	})
}

// FuzzBindFormat checks that a Sprintf template whose format and argument
// are parameters, bound to constants, gives exactly fmt.Sprintf's text,
// whatever the format.
func FuzzBindFormat(f *testing.F) {
	f.Add("SELECT * FROM %s WHERE id = %d", "accounts", int64(7))
	f.Add("%[2]d %[1]q %v%%", "x", int64(-1))
	f.Add("%!", "", int64(0))
	f.Fuzz(func(t *testing.T, format, table string, n int64) {
		tmpl := Node{Op: OpFormat, Args: []Node{paramNode(0), paramNode(1), paramNode(2)}}
		vals := []Node{constNode(format), constNode(table), {Op: OpConst, Kind: KindInt, Text: strconv.FormatInt(n, 10)}}
		got, why := subst(tmpl, func(p, _ int, spread bool) ([][]Node, string) {
			return [][]Node{{vals[p]}}, ""
		})
		if why != "" || len(got) != 1 || !got[0].isString() {
			t.Fatalf("subst = %v, %q", got, why)
		}
		if want := fmt.Sprintf(format, table, n); got[0].Text != want {
			t.Errorf("bound %q = %q, want %q", format, got[0].Text, want)
		}
	})
}
