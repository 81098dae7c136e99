package sqlsite_test

import (
	"slices"
	"testing"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

const resolveSrc = `package p

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type kind int

func (k kind) String() string { return "k" }

var cols = []string{"id", "status"}

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

func SprintfQuoted() { sink(fmt.Sprintf("SELECT * FROM %[1]q WHERE %[1]q.id = %[2]d", "t", 3)) }

func SprintfParamArg(table string, n int) {
	sink(fmt.Sprintf("SELECT * FROM %s LIMIT %d", table, n))
}

func SprintfSpread(format string, args ...any) { sink(fmt.Sprintf(format, args...)) }

func SprintfV() { sink(fmt.Sprintf("SELECT * FROM %v LIMIT %v", "t", 5)) }

func SprintfStringer() { sink(fmt.Sprintf("SELECT %v", kind(1))) }

func Built() {
	var b strings.Builder
	b.WriteString("SELECT * FROM t")
	b.WriteByte(' ')
	fmt.Fprintf(&b, "WHERE id = %d", 1)
	b.WriteRune(' ')
	b.Write([]byte("FOR UPDATE"))
	sink(b.String())
	b.WriteString(" -- after the read")
}

func BuiltParam(table string) {
	b := new(strings.Builder)
	b.WriteString("LOCK TABLE ")
	b.WriteString(table)
	sink(b.String())
}

func BuiltBranch(b2 bool) {
	var b strings.Builder
	b.WriteString("SELECT 1")
	if b2 {
		b.WriteString(" FOR UPDATE")
	}
	sink(b.String())
}

func BuiltPassed() {
	var b strings.Builder
	write(&b)
	sink(b.String())
}

func write(b *strings.Builder) { b.WriteString("SELECT 1") }

func Buffered() {
	var b bytes.Buffer
	b.WriteString("DELETE FROM t")
	sink(b.String())
}

func Joined() { sink("SELECT " + strings.Join([]string{"a", "b"}, ", ") + " FROM t") }

func JoinedGlobal(table string) { sink("SELECT " + strings.Join(cols, ", ") + " FROM " + table) }

func JoinedParam(xs []string) { sink("SELECT " + strings.Join(xs, ", ")) }

func JoinedRuntime() { sink("SELECT " + strings.Join(os.Args, ", ")) }

func Replaced() {
	sink(strings.TrimSpace(strings.ReplaceAll("  LOCK TABLE {t}  ", "{t}", "accounts")))
}

func Itoa(n int) { sink("SELECT * FROM t_" + strconv.Itoa(3) + " WHERE x = " + strconv.Itoa(n)) }

func viaHelper(name string) (string, error) { return "SELECT * FROM " + name, nil }

func HelperTwoResults(name string) {
	q, _ := viaHelper(name)
	sink(q)
}

func ClosureHelper(table string) {
	build := func() string { return "DELETE FROM " + table }
	sink(build())
}

func LongConcat(a string) {
	sink("SELECT " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + ", " + a + " FROM t")
}

func level1(t string) string { return level2(t) }
func level2(t string) string { return level3(t) }
func level3(t string) string { return level4(t) }
func level4(t string) string { return level5(t) }
func level5(t string) string { return "LOCK TABLE " + t }

func Levels() { sink(level2("a")) }

func TooManyLevels() { sink(level1("a")) }

func six(n int) string {
	switch n {
	case 1:
		return "a"
	case 2:
		return "b"
	case 3:
		return "c"
	case 4:
		return "d"
	case 5:
		return "e"
	}
	return "f"
}

func ManyAlternatives(n, m int) { sink(fmt.Sprintf("LOCK TABLE %s, %s", six(n), six(m))) }

func Doubled() {
	q := "x"
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	q = q + q
	sink(q)
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
		{fn: "LongConcat", templates: []string{`"SELECT " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + ", " + p0 + " FROM t"`}},
		{fn: "Levels", sql: []string{"LOCK TABLE a"}},
		{fn: "ManyAlternatives", unknown: true},
		{fn: "Doubled", unknown: true},
		{fn: "TooManyLevels", unknown: true},
		{fn: "SprintfQuoted", sql: []string{`SELECT * FROM "t" WHERE "t".id = 3`}},
		{fn: "SprintfParamArg", templates: []string{`sprintf("SELECT * FROM %s LIMIT %d", p0, p1)`}},
		{fn: "SprintfSpread", templates: []string{`sprintf(p0, p1...)`}},
		{fn: "SprintfV", sql: []string{"SELECT * FROM t LIMIT 5"}},
		{fn: "SprintfStringer", unknown: true},
		{fn: "Built", sql: []string{"SELECT * FROM t WHERE id = 1 FOR UPDATE"}},
		{fn: "BuiltParam", templates: []string{`"LOCK TABLE " + p0`}},
		{fn: "BuiltBranch", unknown: true},
		{fn: "BuiltPassed", unknown: true},
		{fn: "Buffered", sql: []string{"DELETE FROM t"}},
		{fn: "Joined", sql: []string{"SELECT a, b FROM t"}},
		{fn: "JoinedGlobal", templates: []string{`"SELECT id, status FROM " + p0`}},
		{fn: "JoinedParam", templates: []string{`"SELECT " + strings.Join(p0..., ", ")`}},
		{fn: "JoinedRuntime", unknown: true},
		{fn: "Replaced", sql: []string{"LOCK TABLE accounts"}},
		{fn: "Itoa", templates: []string{`"SELECT * FROM t_3 WHERE x = " + strconv.Itoa(p0)`}},
		{fn: "HelperTwoResults", templates: []string{`"SELECT * FROM " + p0`}},
		{fn: "ClosureHelper", templates: []string{`"DELETE FROM " + p0`}},
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
