package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPathPrefix checks that -path-prefix puts the module's place in the
// repository before the file names of GitHub annotations and SARIF
// locations, and leaves the text output alone.
func TestPathPrefix(t *testing.T) {
	bin := buildTool(t)
	dir := copyModule(t, gateModule(t))
	gh, stderr, code := runTool(t, dir, bin, "-format=github", "-path-prefix=services/billing", "./...")
	if code != exitFindings || !strings.Contains(gh, "::error file=services/billing/api/api.go,") {
		t.Errorf("-format=github -path-prefix: exit %d\n%s\n%s", code, gh, stderr)
	}
	out, _, _ := runTool(t, dir, bin, "-format=sarif", "-path-prefix=services/billing", "./...")
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	uri := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI
	if !strings.HasPrefix(uri, "services/billing/") {
		t.Errorf("SARIF location %q lacks the prefix", uri)
	}
	if text, _, _ := runTool(t, dir, bin, "-path-prefix=services/billing", "./..."); strings.Contains(text, "services/billing") {
		t.Errorf("text output got the prefix:\n%s", text)
	}
}
