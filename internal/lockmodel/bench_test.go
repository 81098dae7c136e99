package lockmodel

import (
	"fmt"
	"strings"
	"testing"
)

// multiStatement returns one SQL string of n statements, each locking a
// table of its own: a seed or migration script run as one string.
func multiStatement(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "UPDATE t%d SET n = n + 1 WHERE id = %d;\n", i, i)
	}
	return b.String()
}

// BenchmarkMultiStatement measures splitting, parsing and modelling one
// string of many statements (issue: 5,000 took 65 s): the time per
// statement must stay flat as the string grows.
func BenchmarkMultiStatement(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 5000} {
		sql := multiStatement(n)
		b.Run(fmt.Sprintf("split/statements=%d", n), func(b *testing.B) {
			for b.Loop() {
				stmts, err := Split(sql)
				if err != nil || len(stmts) != n {
					b.Fatalf("%d statements, %v", len(stmts), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/stmt")
		})
		b.Run(fmt.Sprintf("model/statements=%d", n), func(b *testing.B) {
			for b.Loop() {
				a := analyze(nil, sql) // uncached
				if a.Err != nil || a.Statements != n {
					b.Fatalf("%d statements, %v", a.Statements, a.Err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/stmt")
		})
	}
}
