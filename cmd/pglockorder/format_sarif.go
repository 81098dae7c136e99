package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/analyzer/lockgraph"
	"github.com/pglockorder/pglockorder/analyzer/report"
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
const fingerprintKey = "pglockorder/v1"

// rule describes one rule family for SARIF consumers (GitHub code scanning
// shows the help next to each alert).
type rule struct {
	category, name, short, help string
}

// rules are the rule families, one per diagnostic category.
var rules = []rule{
	{report.CategoryInversion, "LockOrderInversion", "Code paths take the same PostgreSQL locks in opposite orders",
		"Two or more code paths take the same row, table or advisory locks in conflicting orders inside transactions. " +
			"Run concurrently, each holds what the other waits for: PostgreSQL aborts one with 40P01 after deadlock_timeout. " +
			"Take the locks in one order on every path (the message names the path that breaks the order), or serialise " +
			"the paths with a common lock taken first."},
	{report.CategorySession, "SessionAdvisoryCycle", "A lock-order cycle through a session-level advisory lock",
		"A lock-order cycle passes through pg_advisory_lock. PostgreSQL detects the deadlock, but a session-level " +
			"advisory lock survives the error and the ROLLBACK, so the other path stays blocked until the application " +
			"unlocks or disconnects. Use pg_advisory_xact_lock, and take the locks in one order."},
	{report.CategoryCrossConn, "CrossConnectionDeadlock", "A path holds a lock on one connection while waiting on another",
		"A path holds a lock on one connection (an open transaction, a session advisory lock) and waits on a second " +
			"connection of the same program. PostgreSQL cannot see that wait, so the cycle hangs instead of failing. " +
			"Use the same transaction or commit first; set lock_timeout so that a hang becomes an error."},
	{report.CategoryPoolAdvisor, "SessionAdvisoryOnPool", "pg_advisory_lock run on a connection pool",
		"A session-level advisory lock taken through a pool may be released on another connection: the unlock does " +
			"nothing and the lock stays held by an idle pooled session. Take it on a dedicated connection, or use " +
			"pg_advisory_xact_lock in a transaction."},
	{report.CategoryLeak, "SessionAdvisoryLeak", "A session advisory lock may outlive its connection's use",
		"A session advisory lock may still be held where its connection goes back to the pool; the session, and the " +
			"lock, go on. Unlock before releasing the connection, on every path."},
	{report.CategoryUnorderedRows, "UnorderedMultiRowLock", "One statement locks several rows in no defined order",
		"A blocking row-locking statement (SELECT ... FOR UPDATE/SHARE, or an UPDATE, DELETE or upsert in a transaction) " +
			"can lock several rows (= ANY, IN, a range, a join) and has no ORDER BY: two executions that lock overlapping " +
			"rows take them in different orders and deadlock (40P01). Lock the rows in one order: SELECT ... ORDER BY id " +
			"FOR UPDATE first, or a CTE that does so before the UPDATE."},
	{report.CategoryOrderMismatch, "RowOrderMismatch", "Two statements lock the rows of one table in different orders",
		"Two blocking locking statements on the same table order their rows differently (ORDER BY hash against ORDER BY " +
			"hash DESC, or other keys): transactions that lock overlapping rows in the two orders deadlock (40P01). Use " +
			"one ORDER BY everywhere, ending in a unique key."},
	{report.CategoryLoopOrder, "LoopLockOrder", "A transaction locks rows in the order of a map or an unsorted slice",
		"A row lock (or advisory lock) is taken once per iteration of a loop over a map (random order) or over a slice " +
			"nobody sorted, inside one transaction: two transactions that lock overlapping keys in different orders " +
			"deadlock (40P01). Sort the keys before the loop, or lock all rows in one ordered statement."},
	{report.CategoryCallerOrder, "CallerChosenRowOrder", "Two rows of one table are locked in the order the caller passes them",
		"A transaction locks two rows of one table keyed by two values the caller chooses (from, to): two concurrent " +
			"calls with the values swapped deadlock (40P01). Lock the lower key first (min/max), or both rows in one " +
			"statement with ORDER BY."},
	{analyzer.CategoryDeclaredOrder, "DeclaredLockOrder", "A lock is taken against the declared lock order",
		"The configuration file (.pglockorder.yaml) declares the order in which tables and advisory keys are locked. " +
			"This acquisition requests a lock that comes earlier in that order while holding one that comes later. " +
			"Change the code to follow the order, or change the declared order for every path."},
	{analyzer.CategoryIgnore, "IgnoreDirective", "A //pglockorder:ignore directive is malformed or matches nothing",
		"An ignore directive must give a reason and sit on the line of a finding or the line above it. One that " +
			"suppresses nothing is stale: remove it."},
}

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
	addRule := func(r rule) {
		index[r.category] = len(run.Tool.Driver.Rules)
		sr := sarifRule{
			ID:               r.category,
			Name:             r.name,
			ShortDescription: sarifMessage{Text: r.short},
			FullDescription:  sarifMessage{Text: r.help},
			Help:             sarifMessage{Text: r.help},
			HelpURI:          analyzer.Analyzer.URL,
		}
		sr.DefaultConfiguration.Level = "error"
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, r := range rules {
		addRule(r)
	}
	for _, f := range findings {
		if _, ok := index[f.Category]; !ok {
			// A category this writer has no help for: still one rule.
			addRule(rule{f.Category, f.Category, "pglockorder: " + f.Category, "See the message and " + analyzer.Analyzer.URL + "."})
		}
		run.Results = append(run.Results, sarifFinding(f, index[f.Category], rel))
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

// messagePosition matches a position in a message's evidence and the rest
// of its line: "store/store.go:22:29: SELECT ... FOR UPDATE".
var messagePosition = regexp.MustCompile(`([^\s()]+\.go:\d+:\d+)(?:: ([^\n]*))?`)

func sarifFinding(f finding, ruleIndex int, rel func(string) string) sarifResult {
	res := sarifResult{
		RuleID:              f.Category,
		RuleIndex:           ruleIndex,
		Level:               "error",
		Locations:           []sarifLocation{{PhysicalLocation: physical(f.Posn)}},
		PartialFingerprints: map[string]string{fingerprintKey: fingerprint(f)},
	}
	// Every position in the evidence becomes a related location, and its
	// text in the message a link to it.
	ids := map[string]int{}
	var text strings.Builder
	last := 0
	for _, m := range messagePosition.FindAllStringSubmatchIndex(f.Message, -1) {
		posn := f.Message[m[2]:m[3]]
		id, ok := ids[posn]
		if !ok {
			id = len(ids) + 1
			ids[posn] = id
			loc := sarifLocation{ID: &id, PhysicalLocation: physical(posn)}
			if m[4] >= 0 {
				loc.Message = &sarifMessage{Text: f.Message[m[4]:m[5]]}
			}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		text.WriteString(escapeBrackets(f.Message[last:m[2]]))
		fmt.Fprintf(&text, "[%s](%d)", posn, id)
		last = m[3]
	}
	text.WriteString(escapeBrackets(f.Message[last:]))
	res.Message = sarifMessage{Text: text.String()}
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
					Location:     sarifLocation{PhysicalLocation: physical(rel(fr.Pos)), Message: &sarifMessage{Text: what}},
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

// escapeBrackets escapes the brackets of plain message text, which SARIF
// viewers would otherwise read as links.
func escapeBrackets(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}
