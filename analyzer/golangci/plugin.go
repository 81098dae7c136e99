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
	"errors"
	"fmt"
	"strconv"

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
// (linters.settings.custom.pglockorder.settings). They are the analyzer's
// flags under the same names, so the three drivers are configured alike.
type Settings struct {
	// MaxCycle is the longest cycle of locks to look for (2 to 12).
	MaxCycle int `json:"maxcycle"`
	// Config is the declared lock order file (.pglockorder.yaml); empty
	// looks for one at the root of the analysed module.
	Config string `json:"config"`
}

// known lists the setting names for the error message about a misspelt one.
const known = "maxcycle, config"

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
	flags := map[string]string{}
	if s.MaxCycle != 0 {
		flags["maxcycle"] = strconv.Itoa(s.MaxCycle)
	}
	if s.Config != "" {
		flags["config"] = s.Config
	}
	for name, val := range flags {
		f := analyzer.Analyzer.Flags.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("pglockorder settings: %q is not supported by this version of the analyzer", name)
		}
		if err := f.Value.Set(val); err != nil {
			return nil, fmt.Errorf("pglockorder settings: %s: %w", name, err)
		}
	}
	return plugin{}, nil
}

// decode decodes the settings strictly.
func decode(conf any) (Settings, error) {
	if conf == nil {
		return Settings{}, nil
	}
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return Settings{}, fmt.Errorf("pglockorder settings (known: %s): %w", known, err)
	}
	if s.MaxCycle != 0 && (s.MaxCycle < 2 || s.MaxCycle > 12) {
		return Settings{}, errors.New("pglockorder settings: maxcycle must be between 2 and 12")
	}
	return s, nil
}

// BuildAnalyzers returns the analyzer.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{analyzer.Analyzer}, nil
}

// GetLoadMode asks for type information: the analyzer builds SSA.
func (plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}
