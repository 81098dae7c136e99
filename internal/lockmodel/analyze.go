package lockmodel

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// cache maps a SQL string to its *cacheEntry, for analyses without a
// schema (a Schema keeps its own: Schema.analyses). A program repeats the
// same query strings at many call sites and the analyzer revisits them along
// many paths, while parsing goes through cgo and costs far more than a map
// look-up. Entries are never evicted: the set of SQL strings in the analysed
// source is finite and small. It is a cache of pure results, not
// configuration.
var cache sync.Map

// cacheEntry lets concurrent callers of Analyze with the same new string
// wait for one parse instead of each parsing it.
type cacheEntry struct {
	once     sync.Once
	analysis *Analysis
}

// Analyze parses sql with PostgreSQL's parser and returns the effects of
// executing it: the locks each statement requests, advisory unlocks and
// transaction control, in execution order.
//
// Analyze knows no schema: it is Schema.Analyze on a nil schema.
//
// Results are cached per string, so Analyze returns the same *Analysis for
// the same sql: callers must treat it, its Effects and their keys as
// read-only. Analyze is safe for concurrent use and never panics; a string
// that is not valid SQL yields an Analysis with Err set and no effects.
func Analyze(sql string) *Analysis {
	return (*Schema)(nil).Analyze(sql)
}

// Analyze is the package's Analyze with the locks the schema implies
// (foreign-key checks and cascades, updates of key columns, the functions
// and triggers of the schema) added; a nil schema adds none. Results are
// cached per schema and string, with the same rules as Analyze; Parse
// drops the schema's.
func (s *Schema) Analyze(sql string) *Analysis {
	c := &cache
	if s != nil {
		c = &s.analyses
	}
	v, ok := c.Load(sql)
	if !ok {
		// Only a miss allocates an entry; LoadOrStore makes every
		// concurrent caller share the first entry stored.
		v, _ = c.LoadOrStore(sql, new(cacheEntry))
	}
	e := v.(*cacheEntry)
	e.once.Do(func() {
		start := time.Now()
		e.analysis = analyze(s, sql)
		modelNanos.Add(int64(time.Since(start)))
	})
	return e.analysis
}

// modelNanos sums the time spent parsing and modelling new strings.
var modelNanos atomic.Int64

// ModelTime returns the time Analyze has spent parsing and modelling SQL
// strings (not cache look-ups) since the program started, summed over
// goroutines: the "SQL model" phase of the driver's timings.
func ModelTime() time.Duration { return time.Duration(modelNanos.Load()) }

// errNUL reports a SQL string that contains a NUL byte.
var errNUL = errors.New("SQL text contains a NUL byte")

// analyze is Schema.Analyze without the cache.
func analyze(s *Schema, sql string) (a *Analysis) {
	defer func() {
		// The walker handles every node type it knows and skips the
		// rest, but the parse tree is large and the input arbitrary:
		// a bug must cost one query's analysis, not the whole run.
		if r := recover(); r != nil {
			a = &Analysis{Err: fmt.Errorf("analyze SQL: internal error: %v", r)}
		}
	}()
	if strings.IndexByte(sql, 0) >= 0 {
		// The parser would stop at the NUL (a C string) and the server
		// rejects such a query; either way the tail would be ignored.
		return &Analysis{Err: fmt.Errorf("parse SQL: %w", errNUL)}
	}
	tree, err := pg_query.Parse(sql)
	if alt, ok := rewritePlaceholders(sql); err != nil && ok {
		tree, err = parseRewritten(alt, err)
	}
	if err != nil {
		return &Analysis{Err: fmt.Errorf("parse SQL: %w", err)}
	}
	stmts := tree.GetStmts()
	a = &Analysis{Statements: len(stmts)}
	for i, raw := range stmts {
		a.Effects = append(a.Effects, withSchema(s, i, raw.GetStmt(), statementEffects(s, i, raw.GetStmt()))...)
	}
	return a
}
