package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/report"
)

// SARIF 2.1.0 objects, as far as pglockorder fills them in.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations,omitempty"` // sarif_run.go
		Results     []sarifResult     `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifMessage `json:"shortDescription"`
		FullDescription      sarifMessage `json:"fullDescription"`
		Help                 sarifMessage `json:"help"`
		HelpURI              string       `json:"helpUri"`
		DefaultConfiguration struct {
			Level string `json:"level"`
		} `json:"defaultConfiguration"`
	}
	sarifMessage struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
		CodeFlows           []sarifCodeFlow   `json:"codeFlows,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
	}
	sarifLocation struct {
		ID               *int                  `json:"id,omitempty"`
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		Message          *sarifMessage         `json:"message,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           *sarifRegion          `json:"region,omitempty"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	sarifCodeFlow struct {
		Message     sarifMessage      `json:"message"`
		ThreadFlows []sarifThreadFlow `json:"threadFlows"`
	}
	sarifThreadFlow struct {
		Message   sarifMessage              `json:"message"`
		Locations []sarifThreadFlowLocation `json:"locations"`
	}
	sarifThreadFlowLocation struct {
		Location     sarifLocation `json:"location"`
		NestingLevel int           `json:"nestingLevel"`
	}
)

// fingerprintKey names pglockorder's partial fingerprint; the version
// changes if the fingerprint's recipe does.
const fingerprintKey = "pglockorder/v2"

// writeSARIF prints findings as a SARIF 2.1.0 log, for GitHub code scanning
// and other SARIF viewers. rel shows positions as the messages do.
func writeSARIF(w io.Writer, findings []finding, rel func(string) string, info runInfo) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "pglockorder",
			Version:        info.version,
			InformationURI: analyzer.Analyzer.URL,
		}},
		Invocations: info.invocations(),
		Results:     []sarifResult{},
	}
	index := map[string]int{}
	addRule := func(c category.Category) {
		index[c.ID] = len(run.Tool.Driver.Rules)
		sr := sarifRule{
			ID:               c.ID,
			Name:             c.Name,
			ShortDescription: sarifMessage{Text: c.Title},
			FullDescription:  sarifMessage{Text: c.Help},
			Help:             sarifMessage{Text: c.Help},
			HelpURI:          c.URL(),
		}
		sr.DefaultConfiguration.Level = c.Severity
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, c := range category.All {
		addRule(c)
	}
	for _, f := range findings {
		if _, ok := index[f.Category]; !ok {
			// A category outside the catalogue (a test asserts there is
			// none): still one rule.
			addRule(category.Category{ID: f.Category, Name: f.Category, Title: "pglockorder: " + f.Category,
				Help: "See the message.", Severity: "error"})
		}
		run.Results = append(run.Results, sarifFinding(f, index[f.Category], run.Tool.Driver.Rules[index[f.Category]].DefaultConfiguration.Level, rel))
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("writing SARIF: %w", err)
	}
	return nil
}

func sarifFinding(f finding, ruleIndex int, level string, rel func(string) string) sarifResult {
	res := sarifResult{
		RuleID:              f.Category,
		RuleIndex:           ruleIndex,
		Level:               level,
		Locations:           []sarifLocation{{PhysicalLocation: physical(f.Posn)}},
		PartialFingerprints: map[string]string{fingerprintKey: identity(f)},
	}
	// Every step of the finding's paths becomes a related location, and
	// where the message shows its position, a link to it: code scanning
	// hides related locations the message does not link.
	ids := map[string]int{}
	for _, r := range f.Related {
		if _, ok := ids[r.Posn]; ok {
			continue
		}
		id := len(ids) + 1
		ids[r.Posn] = id
		res.RelatedLocations = append(res.RelatedLocations,
			sarifLocation{ID: &id, PhysicalLocation: physical(r.Posn), Message: &sarifMessage{Text: r.Message}})
	}
	res.Message = sarifMessage{Text: linkPositions(f.Message, ids)}
	if c := f.cycle; c != nil {
		res.CodeFlows = []sarifCodeFlow{codeFlow(c, rel)}
	}
	return res
}

// codeFlow shows a cycle's paths as one thread flow each: the request of
// the lock it holds, then the request it waits at, with the calls that lead
// to each.
func codeFlow(c *lockgraph.Cycle, rel func(string) string) sarifCodeFlow {
	cf := sarifCodeFlow{Message: sarifMessage{Text: headline(report.Message(c, report.Options{Rel: rel}))}}
	for i, s := range c.Steps {
		tf := sarifThreadFlow{Message: sarifMessage{Text: fmt.Sprintf("path %d: %s holds %s while waiting for %s", i+1, s.Func, s.Held, s.Wanted)}}
		add := func(verb string, frames []lockgraph.Frame) {
			for level, fr := range frames {
				what := fr.What
				if level == 0 {
					what = verb + ": " + what
				} else {
					what += " (in " + fr.Func + ")"
				}
				tf.Locations = append(tf.Locations, sarifThreadFlowLocation{
					Location:     sarifLocation{PhysicalLocation: physical(rel(fr.Pos.String())), Message: &sarifMessage{Text: what}},
					NestingLevel: level,
				})
			}
		}
		add("takes", s.HeldPath)
		add("then waits", s.WantedPath)
		cf.ThreadFlows = append(cf.ThreadFlows, tf)
	}
	return cf
}

// physical turns "file:line:col" into a SARIF location: a relative file
// against the source root (where the command ran), an absolute one as a
// file URI.
func physical(posn string) sarifPhysicalLocation {
	file, line, col := splitPosn(posn)
	file = withPathPrefix(file)
	loc := sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: filepath.ToSlash(file), URIBaseID: "%SRCROOT%"}}
	if filepath.IsAbs(file) {
		loc.ArtifactLocation = sarifArtifactLocation{URI: "file://" + filepath.ToSlash(file)}
	}
	if line > 0 {
		loc.Region = &sarifRegion{StartLine: line, StartColumn: col}
	}
	return loc
}

// linkPositions escapes the brackets of a message and turns each mention of
// a related position (ids, by its text) into a SARIF link to it. A mention
// counts only where the position ends: "a.go:1:2" is not linked inside
// "a.go:1:23".
func linkPositions(msg string, ids map[string]int) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(msg); i++ {
		posn, id := "", 0
		for p, n := range ids {
			if len(p) > len(posn) && strings.HasPrefix(msg[i:], p) && !continuesNumber(msg, i+len(p)) {
				posn, id = p, n
			}
		}
		if posn == "" {
			continue
		}
		b.WriteString(escapeBrackets(msg[last:i]))
		fmt.Fprintf(&b, "[%s](%d)", posn, id)
		i += len(posn) - 1
		last = i + 1
	}
	b.WriteString(escapeBrackets(msg[last:]))
	return b.String()
}

// continuesNumber reports whether msg has a digit at i.
func continuesNumber(msg string, i int) bool {
	return i < len(msg) && msg[i] >= '0' && msg[i] <= '9'
}

// escapeBrackets escapes the brackets of plain message text, which SARIF
// viewers would otherwise read as links.
func escapeBrackets(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}
