package sqlsite

import (
	"go/types"
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	tests := []struct {
		spec, want, err string
	}{
		{"", "", ""},
		{"example.com/db.Run:1", "example.com/db.Run:1", ""},
		{" example.com/db.Conn.Exec:0 , example.com/x/y.F:2,", "example.com/db.Conn.Exec:0,example.com/x/y.F:2", ""},
		{"example.com/db.Run", "", "want import/path.Func:N"},
		{"example.com/db.Run:x", "", "is not a number"},
		{"example.com/db.Run:-1", "", "is not a number"},
		{"example.com/db:1", "", "want import/path.Func"},
		{"example.com/db.:1", "", "want import/path.Func"},
	}
	for _, tt := range tests {
		m, err := parseRules(tt.spec)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseRules(%q) error = %v, want one containing %q", tt.spec, err, tt.err)
			}
		case err != nil:
			t.Errorf("parseRules(%q): %v", tt.spec, err)
		case formatRules(m) != tt.want:
			t.Errorf("parseRules(%q) = %q, want %q", tt.spec, formatRules(m), tt.want)
		}
	}
}

func TestSetSinksHandleTypes(t *testing.T) {
	userRules, err := NewRules("example.com/db.Conn.Run:1,example.com/db.Exec:0", "")
	if err != nil {
		t.Fatal(err)
	}
	if !userRules.handleTypes["example.com/db.Conn"] || userRules.handleTypes["example.com/db"] || len(userRules.handleTypes) != 1 {
		t.Errorf("handle types = %v, want only example.com/db.Conn", userRules.handleTypes)
	}
	if got := userRules.Sinks(); got != "example.com/db.Conn.Run:1,example.com/db.Exec:0" {
		t.Errorf("Sinks() = %q", got)
	}
	// Its importers can run SQL; the package itself is analysed like any
	// other (an interface declared as a sink may sit beside its callers).
	if !userRules.IsRulePackage("example.com/db") || userRules.IsRulePackage("example.com/dbx") || IsDriverPackage("example.com/db") {
		t.Error("a package that declares a sink is not a rule package, or is modelled instead of analysed")
	}
	if rs := userRules.byMethod["Run"]; len(rs) != 1 || rs[0] != (methodRule{pkg: "example.com/db", typ: "Conn", method: "Run", n: 1}) {
		t.Errorf("rules by method = %v, want example.com/db.Conn.Run:1 under Run", userRules.byMethod)
	}
	if _, ok := userRules.byMethod["Exec"]; ok {
		t.Errorf("the function example.com/db.Exec is indexed as a method: %v", userRules.byMethod)
	}
	userRules, err = NewRules(userRules.Sinks(), "gopkg.in/store.v2.TxRunner.InTx:1")
	if err != nil {
		t.Fatal(err)
	}
	if rs := userRules.byMethod["InTx"]; len(rs) != 1 || rs[0] != (methodRule{pkg: "gopkg.in/store.v2", typ: "TxRunner", method: "InTx", runner: true, n: 1}) {
		t.Errorf("rules by method = %v, want gopkg.in/store.v2.TxRunner.InTx:1 under InTx", userRules.byMethod)
	}
	// No rules: nothing is a rule package or a handle.
	var none *Rules
	if none.IsRulePackage("example.com/db") || none.userHandle(types.NewPointer(types.Typ[types.Int])) || none.Sinks() != "" {
		t.Error("a nil *Rules declares something")
	}
}
