package sqlsite

import (
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
	if err := SetSinks("example.com/db.Conn.Run:1,example.com/db.Exec:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = SetSinks("") })
	if !userRules.handleTypes["example.com/db.Conn"] || userRules.handleTypes["example.com/db"] || len(userRules.handleTypes) != 1 {
		t.Errorf("handle types = %v, want only example.com/db.Conn", userRules.handleTypes)
	}
	if got := Sinks(); got != "example.com/db.Conn.Run:1,example.com/db.Exec:0" {
		t.Errorf("Sinks() = %q", got)
	}
	if !IsDriverPackage("example.com/db") || IsDriverPackage("example.com/dbx") {
		t.Error("a package that declares a sink is not modelled like a database API")
	}
}
