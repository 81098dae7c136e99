package main

import (
	"runtime/debug"
	"strings"
)

// version says which build of pglockorder this is, from what the go command
// stamped into the binary: the module version (v1.2.3 when installed with
// go install ...@v1.2.3, "(devel)" when built from a checkout) and, when
// built in a git checkout, the commit and whether the tree had changes.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information in the binary)"
	}
	return versionOf(bi)
}

// versionOf formats a build's version: "v1.2.3", "(devel) 0123456789ab",
// "(devel) 0123456789ab+dirty" or "(devel)".
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" || strings.Contains(v, shortRev(rev)) {
		// A pseudo-version (v0.0.0-20261201-0123456789ab) already names
		// the commit.
		return v
	}
	v += " " + shortRev(rev)
	if dirty {
		v += "+dirty"
	}
	return v
}

// shortRev shortens a commit hash as pseudo-versions do, to 12 digits.
func shortRev(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
