package lockmodel

import (
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// rewritePlaceholders rewrites the bind markers that Go libraries accept but
// PostgreSQL's parser does not into PostgreSQL's own $n: "?" (sqlx, GORM,
// xorm and squirrel before rebinding) and ":name" (sqlx's named queries,
// where each distinct name is one parameter). Without it a query such as
// "SELECT ... WHERE id = ? FOR UPDATE" would not parse and its lock would be
// lost. Text inside string literals, quoted identifiers, dollar-quoted
// bodies and comments is left alone, and so are "::" casts and the "?|",
// "?&" jsonb operators.
//
// It reports false when there is nothing to rewrite. The caller only tries
// it on text that failed to parse as written, so a real "?" jsonb operator
// in valid SQL is never touched.
func rewritePlaceholders(sql string) (string, bool) {
	var (
		b       strings.Builder
		n       int
		named   = map[string]int{}
		changed bool
	)
	b.Grow(len(sql) + 8)
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := skipQuoted(sql, i, c)
			b.WriteString(sql[i:j])
			i = j
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			end := len(sql)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(sql[i:end])
			i = end
		case c == '$':
			j := skipDollarQuoted(sql, i)
			b.WriteString(sql[i:j])
			i = j
		case c == '?':
			if i+1 < len(sql) && (sql[i+1] == '|' || sql[i+1] == '&') {
				b.WriteString(sql[i : i+2])
				i += 2
				continue
			}
			n++
			changed = true
			i++
			// GORM's "id IN ?" and sqlx.In's "id IN (?)" expand a slice
			// into a list: a set of rows, "= ANY($n)" to the parser
			// (which would read a list of one as an equality).
			out := b.String()
			if head, ok := cutIn(out); ok {
				b.Reset()
				b.WriteString(head + "= ANY($" + strconv.Itoa(n) + ")")
				continue
			}
			if head, ok := cutIn(strings.TrimSuffix(strings.TrimRight(out, " \t\n"), "(")); ok && strings.HasPrefix(strings.TrimLeft(sql[i:], " \t\n"), ")") {
				b.Reset()
				b.WriteString(head + "= ANY($" + strconv.Itoa(n) + ")")
				i += strings.IndexByte(sql[i:], ')') + 1
				continue
			}
			b.WriteString("$" + strconv.Itoa(n))
		case c == ':':
			if i+1 < len(sql) && sql[i+1] == ':' {
				b.WriteString("::")
				i += 2
				continue
			}
			j := i + 1
			for j < len(sql) && isIdentByte(sql[j], j == i+1) {
				j++
			}
			if j == i+1 || isSliceContext(sql, i) {
				b.WriteByte(c)
				i++
				continue
			}
			name := sql[i+1 : j]
			k, ok := named[name]
			if !ok {
				n++
				k = n
				named[name] = k
			}
			b.WriteString("$" + strconv.Itoa(k))
			changed = true
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	if !changed {
		return "", false
	}
	return b.String(), true
}

// cutIn returns the text before a trailing keyword IN, if the text so far
// ends with one.
func cutIn(out string) (string, bool) {
	t := strings.TrimRight(out, " \t\n")
	if len(t) < 2 || !strings.EqualFold(t[len(t)-2:], "in") || len(t) > 2 && isIdentByte(t[len(t)-3], false) {
		return "", false
	}
	return t[:len(t)-2], true
}

// isSliceContext reports whether the ':' at i sits inside square brackets
// (an array slice such as a[1:n]), where it is no bind marker.
func isSliceContext(sql string, i int) bool {
	return strings.LastIndexByte(sql[:i], '[') > strings.LastIndexByte(sql[:i], ']')
}

func isIdentByte(c byte, first bool) bool {
	switch {
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return true
	case c >= '0' && c <= '9':
		return !first
	}
	return false
}

// skipQuoted returns the index just past the literal or quoted identifier
// opened by quote q at i (a doubled quote stays inside).
func skipQuoted(sql string, i int, q byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// skipDollarQuoted returns the index past a dollar-quoted string opened at i
// ($$...$$ or $tag$...$tag$), or past the '$' (and a following parameter
// number) when none opens there.
func skipDollarQuoted(sql string, i int) int {
	j := i + 1
	for j < len(sql) && isIdentByte(sql[j], j == i+1) {
		j++
	}
	if j < len(sql) && sql[j] == '$' {
		tag := sql[i : j+1]
		if end := strings.Index(sql[j+1:], tag); end >= 0 {
			return j + 1 + end + len(tag)
		}
		return len(sql)
	}
	for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
		j++
	}
	return j
}

// Dollar returns sql with its "?" and ":name" bind markers written as
// PostgreSQL's $n when it does not parse as written (the text Analyze
// analyses), else sql unchanged: what a reproducer can hand to psql.
func Dollar(sql string) string {
	if !strings.ContainsAny(sql, "?:") {
		return sql
	}
	if v, ok := dollarCache.Load(sql); ok {
		return v.(string)
	}
	out := sql
	if Analyze(sql).Err == nil {
		if _, err := pg_query.Parse(sql); err != nil {
			if alt, ok := rewritePlaceholders(sql); ok {
				out = alt
			}
		}
	}
	dollarCache.Store(sql, out)
	return out
}

// dollarCache maps a SQL text to its Dollar form: reports ask for it at
// every event, and the check parses.
var dollarCache sync.Map

// parseRewritten parses the text with its bind markers rewritten; when that
// fails too, the error of the text as written is the one to report.
func parseRewritten(alt string, orig error) (*pg_query.ParseResult, error) {
	tree, err := pg_query.Parse(alt)
	if err != nil {
		return nil, orig
	}
	return tree, nil
}
