package sqlsite_test

import (
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/analyzer/sqlsite"
)

const resolveSrc = `package p

import (
	"fmt"
	"os"
)

func sink(q string) {}

const lockSubs = "SELECT * FROM subscriptions WHERE id = $1 FOR UPDATE"

var pkgQuery = "UPDATE usage_records SET n = n + 1"

var pkgRuntime = os.Getenv("Q")

func constQuery() string { return "DELETE FROM invoices" }

func lockQuery(table string) string { return "SELECT * FROM " + table + " FOR UPDATE" }

func pick(b bool) string {
	if b {
		return "SELECT 1"
	}
	return "SELECT 2"
}

func Constant() { sink(lockSubs) }

func Concat() {
	q := "SELECT * FROM accounts"
	q += " WHERE id = $1"
	sink(q + " FOR UPDATE")
}

func ConcatParam(where string) { sink("SELECT * FROM t WHERE " + where) }

func ConcatRuntime() { sink("SELECT * FROM " + os.Getenv("T")) }

func Phi(b bool) {
	q := "SELECT * FROM a FOR UPDATE"
	if b {
		q = "LOCK TABLE b IN SHARE MODE"
	}
	sink(q)
}

func PhiSame(b bool) {
	q := "SELECT 1"
	if b {
		q = "SELECT 1"
	}
	sink(q)
}

func PhiParam(b bool, q string) {
	if b {
		q = "DELETE FROM t"
	}
	sink(q)
}

func PhiRuntime(b bool) {
	q := "DELETE FROM t"
	if b {
		q = os.Getenv("Q")
	}
	sink(q)
}

func Sprintf() {
	sink(fmt.Sprintf("SELECT * FROM %s WHERE id = %d FOR %s", "accounts", 7, "UPDATE"))
}

func SprintfAlternatives(b bool) {
	t := "a"
	if b {
		t = "b"
	}
	sink(fmt.Sprintf("LOCK TABLE %s", t))
}

func SprintfNoArgs() { sink(fmt.Sprintf("SELECT 100%%")) }

func SprintfRuntimeArg() { sink(fmt.Sprintf("SELECT * FROM %s", os.Getenv("T"))) }

func SprintfParamFormat(f string) { sink(fmt.Sprintf(f, 1)) }

func Param(db any, q string) { sink(q) }

func Runtime() { sink(os.Getenv("Q")) }

func PkgVar() { sink(pkgQuery) }

func PkgVarRuntime() { sink(pkgRuntime) }

func SameFunc() { sink(constQuery()) }

func Builder() { sink(lockQuery("accounts")) }

func BuilderParam(table string) { sink(lockQuery(table)) }

func Picker(b bool) { sink(pick(b)) }

func Closure() {
	q := "SELECT * FROM jobs FOR UPDATE SKIP LOCKED"
	func() { sink(q) }()
}

func Bytes() {
	b := []byte("SELECT 1")
	sink(string(b))
}

func ListLoop() {
	for _, q := range []string{"LOCK TABLE b", "LOCK TABLE a"} {
		sink(q)
	}
}

func ListIndex() {
	qs := []string{"LOCK TABLE b", "LOCK TABLE a"}
	sink(qs[1])
}

func ListRuntime() {
	for _, q := range []string{"LOCK TABLE b", os.Getenv("Q")} {
		sink(q)
	}
}
`

func TestResolve(t *testing.T) {
	pkg := build(t, resolveSrc)
	tests := []struct {
		fn        string
		sql       []string
		params    []int
		templates []string
		unknown   bool
		seq       bool
	}{
		{fn: "Constant", sql: []string{"SELECT * FROM subscriptions WHERE id = $1 FOR UPDATE"}},
		{fn: "Concat", sql: []string{"SELECT * FROM accounts WHERE id = $1 FOR UPDATE"}},
		{fn: "ConcatParam", templates: []string{`"SELECT * FROM t WHERE " + p0`}},
		{fn: "ConcatRuntime", unknown: true},
		{fn: "Phi", sql: []string{"LOCK TABLE b IN SHARE MODE", "SELECT * FROM a FOR UPDATE"}},
		{fn: "PhiSame", sql: []string{"SELECT 1"}},
		{fn: "PhiParam", sql: []string{"DELETE FROM t"}, params: []int{1}},
		{fn: "PhiRuntime", sql: []string{"DELETE FROM t"}, unknown: true},
		{fn: "Sprintf", sql: []string{"SELECT * FROM accounts WHERE id = 7 FOR UPDATE"}},
		{fn: "SprintfAlternatives", sql: []string{"LOCK TABLE a", "LOCK TABLE b"}},
		{fn: "SprintfNoArgs", sql: []string{"SELECT 100%"}},
		{fn: "SprintfRuntimeArg", unknown: true},
		{fn: "SprintfParamFormat", templates: []string{`sprintf(p0, 1)`}},
		{fn: "Param", params: []int{1}},
		{fn: "Runtime", unknown: true},
		{fn: "PkgVar", sql: []string{"UPDATE usage_records SET n = n + 1"}},
		{fn: "PkgVarRuntime", unknown: true},
		{fn: "SameFunc", sql: []string{"DELETE FROM invoices"}},
		{fn: "Builder", sql: []string{"SELECT * FROM accounts FOR UPDATE"}},
		{fn: "BuilderParam", templates: []string{`"SELECT * FROM " + p0 + " FOR UPDATE"`}},
		{fn: "Picker", sql: []string{"SELECT 1", "SELECT 2"}},
		{fn: "Closure$1", params: []int{0}},
		{fn: "Bytes", unknown: true},
		{fn: "ListLoop", sql: []string{"LOCK TABLE b", "LOCK TABLE a"}, seq: true},
		{fn: "ListIndex", sql: []string{"LOCK TABLE a"}},
		{fn: "ListRuntime", unknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			call := onlyCall(t, pkg, tt.fn, "sink")
			got := sqlsite.Resolve(call.Args[0])
			var tmpls []string
			for _, tm := range got.Templates {
				tmpls = append(tmpls, tm.String())
			}
			if !slices.Equal(got.SQL, tt.sql) || !slices.Equal(got.Params, tt.params) || !slices.Equal(tmpls, tt.templates) || got.Unknown != tt.unknown || got.Seq != tt.seq {
				t.Errorf("Resolve(%v) = {SQL: %q, Params: %v, Templates: %q, Unknown: %t, Seq: %t}, want {SQL: %q, Params: %v, Templates: %q, Unknown: %t, Seq: %t}",
					call.Args[0], got.SQL, got.Params, tmpls, got.Unknown, got.Seq, tt.sql, tt.params, tt.templates, tt.unknown, tt.seq)
			}
			if got.Unknown && got.Why == "" {
				t.Errorf("Resolve(%v) is unknown without a reason", call.Args[0])
			}
		})
	}
}

func TestVariadicElems(t *testing.T) {
	pkg := build(t, `package p

func v(xs ...any) {}

func Lit() { v("a", 1) }

func None() { v() }

func Spread(xs []any) { v(xs...) }
`)
	tests := []struct {
		fn   string
		n    int
		isOK bool
	}{
		{"Lit", 2, true},
		{"None", 0, true},
		{"Spread", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			call := onlyCall(t, pkg, tt.fn, "v")
			elems, ok := sqlsite.VariadicElems(call.Args[0])
			if ok != tt.isOK || len(elems) != tt.n {
				t.Errorf("VariadicElems = %d elements, %t; want %d, %t", len(elems), ok, tt.n, tt.isOK)
			}
		})
	}
}
