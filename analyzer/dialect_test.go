package analyzer_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/pglockorder/pglockorder/analyzer"
)

// TestDialects runs the analyzer, one package at a time as go vet does, on
// a store with a MySQL and a PostgreSQL implementation: the MySQL one's
// inversion is not reported, the PostgreSQL one's is; a package the
// configuration declares MySQL is silent; one that imports both drivers is
// analysed as PostgreSQL. A package whose driver only its binary registers
// is seen as MySQL by the whole-program command alone
// (cmd/pglockorder TestDialectsWholeProgram): here it is reported.
func TestDialects(t *testing.T) {
	dir := filepath.Join("..", "testdata", "dialect")
	downloadModules(t, dir)
	analysistest.Run(t, dir, analyzer.CorpusAnalyzer, "./...")
}

func TestParseConfigDialects(t *testing.T) {
	for _, tc := range []struct {
		name, text, wantErr string
		want                map[string]string
	}{
		{name: "dialects only", text: "dialects:\n  ./store/mysql/...: mysql\n  example.com/x: postgres\n",
			want: map[string]string{"./store/mysql/...": "mysql", "example.com/x": "postgresql"}},
		{name: "unknown dialect", text: "dialects:\n  ./x: oracle9\n", wantErr: `unknown dialect "oracle9"`},
		{name: "empty pattern", text: "dialects:\n  \"\": mysql\n", wantErr: "empty package pattern"},
		{name: "nothing", text: "dialects: {}\n", wantErr: "want an order: list"},
		{name: "schema none", text: "schema: none\n", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := analyzer.ParseConfig("x.yaml", []byte(tc.text))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Dialects) != len(tc.want) {
				t.Fatalf("dialects %v, want %v", c.Dialects, tc.want)
			}
			for k, v := range tc.want {
				if c.Dialects[k] != v {
					t.Errorf("dialects[%q] = %q, want %q", k, c.Dialects[k], v)
				}
			}
			if c.Order != nil {
				t.Errorf("order %v, want none", c.Order)
			}
		})
	}
}
