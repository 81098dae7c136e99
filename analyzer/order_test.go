package analyzer_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph/lockgraphtest"
)

// TestDeclaredOrder runs the analyzer on a module with a .pglockorder.yaml
// at its root: acquisitions against the declared order are reported in the
// one package, where no cycle exists.
func TestDeclaredOrder(t *testing.T) {
	analysistest.Run(t, filepath.Join("..", "testdata", "declared"), analyzer.CorpusAnalyzer, "./...")
}

func TestParseDeclaredOrder(t *testing.T) {
	for _, tc := range []struct {
		name, text, wantErr string
		want                []string
	}{
		{name: "tables and keys", text: "order:\n  - accounts\n  - ledger\n  - \"advisory:(7)\"\n", want: []string{"accounts", "ledger", "advisory:(7)"}},
		{name: "unknown key", text: "order: [a, b]\nstrict: true\n", wantErr: `x.yaml:2: unknown key "strict"; the known keys are: order`},
		{name: "misspelt list", text: "orders: [a, b]\n", wantErr: `x.yaml:1: unknown key "orders" (did you mean "order"?)`},
		{name: "empty file", text: "", wantErr: "empty"},
		{name: "empty list", text: "order: []\n", wantErr: "the order: list is empty"},
		{name: "duplicate", text: "order: [a, b, a]\n", wantErr: `"a" is listed twice`},
		{name: "not a list", text: "order: a\n", wantErr: "cannot unmarshal"},
		{name: "two documents", text: "order: [a]\n---\norder: [b]\n", wantErr: "want one YAML document"},
		{name: "spaces trimmed", text: "order: [\" a \", b]\n", want: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := analyzer.ParseDeclaredOrder("x.yaml", []byte(tc.text))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(o.Order, ",") != strings.Join(tc.want, ",") {
				t.Errorf("order %q, want %q", o.Order, tc.want)
			}
		})
	}
}

func TestOrderName(t *testing.T) {
	for class, want := range map[string]string{
		"row:accounts":                "accounts",
		"table:accounts":              "accounts",
		"advisory:(7)":                "advisory:(7)",
		"advisory:(7, 3)":             "advisory:(7, 3)",
		"advisory:(?p1)|@x.go:1:2":    "",
		"advisory@x.go:3:4":           "",
		"advisory:(tenant)|@x.go:1:2": "advisory:(tenant)",
	} {
		if got := analyzer.OrderName(lockgraphtest.Class(class)); got != want {
			t.Errorf("OrderName(%q) = %q, want %q", class, got, want)
		}
	}
}

// FuzzParseDeclaredOrder checks that any file either fails with an error or
// gives an order of distinct, non-empty names, never a panic.
func FuzzParseDeclaredOrder(f *testing.F) {
	for _, seed := range []string{
		"order:\n  - accounts\n  - ledger\n",
		"order: [a, b, \"advisory:(7)\"]\n",
		"order: []\n",
		"order: {a: 1}\n",
		"x: [",
		"order:\n  - a\n---\norder: [b]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := analyzer.ParseDeclaredOrder("f.yaml", data)
		if err != nil {
			return
		}
		if len(o.Order) == 0 {
			t.Fatal("an empty order was accepted")
		}
		seen := map[string]bool{}
		for _, n := range o.Order {
			if strings.TrimSpace(n) == "" || seen[n] {
				t.Fatalf("order %q accepted with an empty or repeated name", o.Order)
			}
			seen[n] = true
		}
	})
}
