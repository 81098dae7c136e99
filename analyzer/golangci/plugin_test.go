package golangci

import (
	"maps"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"

	"github.com/pglockorder/pglockorder/analyzer"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		conf    any
		want    Settings
		wantErr string
	}{
		{name: "none", conf: nil, want: Settings{}},
		{name: "empty", conf: map[string]any{}, want: Settings{}},
		{name: "maxcycle", conf: map[string]any{"maxcycle": 6}, want: Settings{"maxcycle": "6"}},
		{name: "config", conf: map[string]any{"config": "lockorder.yaml"}, want: Settings{"config": "lockorder.yaml"}},
		{name: "bool", conf: map[string]any{"debug": true}, want: Settings{"debug": "true"}},
		{name: "unknown key", conf: map[string]any{"maxcycles": 6}, wantErr: `unknown setting "maxcycles" (known: `},
		{name: "driver's flag", conf: map[string]any{"linked-dialects": "x"}, wantErr: `unknown setting "linked-dialects"`},
		{name: "wrong type", conf: map[string]any{"config": map[string]any{"a": 1}}, wantErr: "want a string, a number"},
		{name: "out of range", conf: map[string]any{"maxcycle": 40}, wantErr: "maxcycle must be between 2 and 12"},
		{name: "not a number", conf: map[string]any{"maxcycle": "four"}, wantErr: `maxcycle: want a whole number from 2 to 12, not "four"`},
		{name: "fraction", conf: map[string]any{"maxcycle": 4.5}, wantErr: `maxcycle: want a whole number from 2 to 12, not "4.5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decode(tc.conf)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("decode(%v) = %v, %v; want error containing %q", tc.conf, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !maps.Equal(got, tc.want) {
				t.Fatalf("decode(%v) = %+v, %v; want %+v", tc.conf, got, err, tc.want)
			}
		})
	}
}

// TestRegistered checks that importing the package registers the plugin
// under its linter name, and that it hands golangci-lint the analyzer with
// the settings applied to its flags.
func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin(Name)
	if err != nil {
		t.Fatal(err)
	}
	f := analyzer.Analyzer.Flags.Lookup("maxcycle")
	old := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(old) })
	p, err := newPlugin(map[string]any{"maxcycle": 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Value.String(); got != "5" {
		t.Errorf("maxcycle flag = %s after settings maxcycle: 5", got)
	}
	as, err := p.BuildAnalyzers()
	if err != nil || len(as) != 1 || as[0] != analyzer.Analyzer {
		t.Fatalf("BuildAnalyzers() = %v, %v", as, err)
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", p.GetLoadMode(), register.LoadModeTypesInfo)
	}
	if _, err := newPlugin(map[string]any{"config": "x.yaml", "bogus": true}); err == nil {
		t.Error("an unknown setting was accepted")
	}
}

// TestSettingsErrorOnce checks that a bad setting is reported by the
// plugin's constructor, once, with one prefix: golangci-lint adds the
// linter's name to the errors of the analyzer itself.
func TestSettingsErrorOnce(t *testing.T) {
	f := analyzer.Analyzer.Flags.Lookup("disable")
	old := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(old) })
	_, err := New(map[string]any{"disable": "unordered-row-locks"})
	const want = `pglockorder settings: disable: unknown category "unordered-row-locks" (known: `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("New(disable: unordered-row-locks) = %v; want an error starting %q", err, want)
	}
	if strings.Count(err.Error(), "pglockorder") != 1 {
		t.Errorf("the error names pglockorder more than once: %v", err)
	}
}
