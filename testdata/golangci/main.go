// Command golangci-lint is golangci-lint v2 with the pglockorder module
// plugin compiled in, built the way `golangci-lint custom` builds one (its
// main calls commands.Execute; a blank import registers the plugin), but
// from the module proxy and this repository alone, so that the plugin's
// integration test runs offline.
package main

import (
	"fmt"
	"os"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	_ "github.com/pglockorder/pglockorder/analyzer/golangci"
)

func main() {
	info := commands.BuildInfo{Version: "2.15.0-pglockorder", Commit: "?", Date: "(unknown)", GoVersion: "unknown"}
	if err := commands.Execute(info); err != nil {
		fmt.Fprintf(os.Stderr, "golangci-lint (with pglockorder): %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}
