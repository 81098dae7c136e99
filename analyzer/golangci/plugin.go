// Package golangci plugs pglockorder into golangci-lint v2 as a module
// plugin. A custom golangci-lint binary that imports this package (built by
// `golangci-lint custom` from a .custom-gcl.yml naming it) runs the analyzer
// like any other linter:
//
//	# .custom-gcl.yml
//	version: v2.15.0
//	plugins:
//	  - module: github.com/pglockorder/pglockorder
//	    import: github.com/pglockorder/pglockorder/analyzer/golangci
//	    version: latest
//
//	# .golangci.yml
//	linters:
//	  enable: [pglockorder]
//	  settings:
//	    custom:
//	      pglockorder:
//	        type: module
//	        settings:
//	          maxcycle: 4
//
// golangci-lint analyses one package at a time, as go vet does: a cycle is
// reported in a package that contains one of its paths and sees the others
// through its imports.
package golangci

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/analyzer"
)

// Name is the linter's name in .golangci.yml.
const Name = "pglockorder"

func init() {
	register.Plugin(Name, New)
}

// Settings are the plugin's settings in .golangci.yml
// (linters.settings.custom.pglockorder.settings): the analyzer's flags, under
// the same names as for go vet (-pglockorder.NAME) and the command, so the
// three drivers are configured alike; for example
//
//	maxcycle: 4                  # longest cycle of locks to look for, 2 to 12
//	config: .pglockorder.yaml    # declared lock order, relative to the module root
//
// A list value is passed to its flag comma-separated.
type Settings map[string]string

// internal are the analyzer's flags that its drivers set, never users.
var internal = map[string]bool{"linked-dialects": true, "related": true}

// plugin is the golangci-lint view of the analyzer.
type plugin struct{}

// New is the plugin's constructor golangci-lint calls with the raw settings.
// Unknown keys are an error: a misspelt setting that is silently ignored
// leaves the gate weaker than its configuration says.
func New(conf any) (register.LinterPlugin, error) {
	s, err := decode(conf)
	if err != nil {
		return nil, err
	}
	// The analyzer is configured through its flags, which golangci-lint
	// does not expose; the plugin sets them once, before any package is
	// analysed.
	for _, name := range slices.Sorted(maps.Keys(s)) {
		if err := analyzer.Analyzer.Flags.Set(name, s[name]); err != nil {
			return nil, fmt.Errorf("pglockorder settings: %s: %w", name, err)
		}
	}
	// golangci-lint reports each related position of a diagnostic as an
	// issue of its own ("pglockorder(related information)"): the paths
	// are in the message, where golangci-lint users read them.
	if err := analyzer.Analyzer.Flags.Set("related", "false"); err != nil {
		return nil, fmt.Errorf("pglockorder settings: %w", err)
	}
	// Checked here, once, rather than by the analyzer in every package,
	// whose errors golangci-lint prefixes with the linter's name again.
	if err := analyzer.CheckSettings(); err != nil {
		return nil, fmt.Errorf("pglockorder settings: %w", err)
	}
	return plugin{}, nil
}

// known lists the setting names, for the error about a misspelt one.
func known() string {
	var names []string
	analyzer.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		if !internal[f.Name] {
			names = append(names, f.Name)
		}
	})
	return strings.Join(names, ", ")
}

// decode decodes the settings strictly: every key must name one of the
// analyzer's flags, every value be a string, a number, a boolean or a list
// of them.
func decode(conf any) (Settings, error) {
	if conf == nil {
		return Settings{}, nil
	}
	raw, err := register.DecodeSettings[map[string]any](conf)
	if err != nil {
		return nil, fmt.Errorf("pglockorder settings: %w", err)
	}
	s := Settings{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if analyzer.Analyzer.Flags.Lookup(name) == nil || internal[name] {
			return nil, fmt.Errorf("pglockorder settings: unknown setting %q (known: %s)", name, known())
		}
		v, err := flagValue(raw[name])
		if err != nil {
			return nil, fmt.Errorf("pglockorder settings: %s: %w", name, err)
		}
		s[name] = v
	}
	if v, ok := s["maxcycle"]; ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			return nil, fmt.Errorf("pglockorder settings: maxcycle: want a whole number from 2 to 12, not %q", v)
		case n < 2 || n > 12:
			return nil, fmt.Errorf("pglockorder settings: maxcycle must be between 2 and 12, not %d", n)
		}
	}
	return s, nil
}

// flagValue turns a decoded JSON value into a flag's text.
func flagValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			p, err := flagValue(e)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("want a string, a number, a boolean or a list, not %T", v)
}

// BuildAnalyzers returns the analyzer.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{analyzer.Analyzer}, nil
}

// GetLoadMode asks for type information: the analyzer builds SSA.
func (plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}
