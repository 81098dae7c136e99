package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/explain"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// -explain reads a deadlock as production reports it (a server log, a
// driver's error text, the output of a blocked/blocking query) and
// connects it to the code: run.go analyses the packages as usual and hands
// the sites, edges and findings to runExplain instead of printing the
// findings.

// checkExplain validates -explain against the other flags before the
// packages are loaded, and that its input can be opened: a typo in the
// file name should not cost an analysis. ok is false when the run ends
// with code.
func checkExplain(file string, repro bool, g *gate, stderr io.Writer) (code int, ok bool) {
	if file == "" {
		return 0, true
	}
	switch {
	case repro, g.graph != "", g.suggestOrder, g.baseline != "", g.writeBaseline != "":
		fmt.Fprintln(stderr, "pglockorder: -explain cannot be combined with -repro, -graph, -suggest-order, -baseline or -write-baseline")
		return exitUsage, false
	case g.format != "text" && g.format != "json" && g.format != "sarif":
		fmt.Fprintf(stderr, "pglockorder: -explain prints text, json or sarif, not %s\n", g.format)
		return exitUsage, false
	}
	if file == "-" {
		return 0, true
	}
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(stderr, "pglockorder: -explain: %v\n", err)
		return exitError, false
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		fmt.Fprintf(stderr, "pglockorder: -explain: %s is a directory\n", file)
		return exitError, false
	}
	return 0, true
}

// explainProgram gathers what the analysis found for explain.
func explainProgram(sites []lockseq.Site, edges []*lockgraph.Edge, findings []finding, rel func(string) string) explain.Program {
	p := explain.Program{Sites: sites, Edges: edges, Rel: rel, Schema: analyzer.FlagSchema()}
	for _, f := range findings {
		if f.Category == analyzer.CategoryIgnore {
			continue
		}
		p.Findings = append(p.Findings, explain.Finding{Category: f.Category, Posn: f.Posn, Message: f.Message, Cycle: f.cycle})
	}
	return p
}

// runExplain reads the input, explains its reports and prints them.
// Exit status: 0 when every deadlock and hang is explained by a finding
// (or there are none), 3 when one is explained only partly or not at all,
// 1 when the input cannot be read or is not text, or some package could
// not be analysed.
func runExplain(stdout, stderr io.Writer, file, format string, p explain.Program, failed bool) int {
	in, name := io.Reader(os.Stdin), "standard input"
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(stderr, "pglockorder: -explain: %v\n", err)
			return exitError
		}
		defer func() { _ = f.Close() }() // read-only: nothing to flush
		in, name = f, file
	}
	log, err := explain.Read(in)
	if err != nil {
		fmt.Fprintf(stderr, "pglockorder: -explain: reading %s: %v\n", name, err)
		return exitError
	}
	st := log.Stats
	read := 0
	for _, n := range st.Entries {
		read += n
	}
	if st.BinaryLines > 0 && read == 0 {
		fmt.Fprintf(stderr, "pglockorder: -explain: %s is not a text log: %d of its %d lines are binary (NUL bytes or invalid UTF-8)\n", name, st.BinaryLines, st.Lines)
		return exitError
	}
	if st.BinaryLines > 0 {
		fmt.Fprintf(stderr, "pglockorder: -explain: %d binary lines of %s skipped\n", st.BinaryLines, name)
	}
	if st.CutLines > 0 {
		fmt.Fprintf(stderr, "pglockorder: -explain: %d lines of %s longer than 1 MiB were cut\n", st.CutLines, name)
	}
	exps := explain.Explain(log, p)
	switch format {
	case "json":
		err = writeExplainJSON(stdout, name, exps, log)
	case "sarif":
		err = writeExplainSARIF(stdout, exps)
	default:
		err = writeExplainText(stdout, name, exps)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pglockorder: %v\n", err)
		return exitError
	}
	if log.Dropped > 0 {
		fmt.Fprintf(stderr, "pglockorder: -explain: %d more reports in %s not shown (at most 1000 are kept)\n", log.Dropped, name)
	}
	counts := map[explain.Status]int{}
	for _, x := range exps {
		counts[x.Status]++
	}
	if len(exps) == 0 {
		fmt.Fprintf(stderr, "pglockorder: -explain: no deadlock, lock wait or blocked process in %s (%d lines, %s)\n", name, st.Lines, describeEntries(st.Entries))
	} else {
		fmt.Fprintf(stderr, "pglockorder: -explain: %d report(s) in %s: %d explained by a finding, %d partly, %d not\n",
			len(exps), name, counts[explain.Explained], counts[explain.Partly], counts[explain.Unexplained])
	}
	switch {
	case failed:
		return exitError
	case counts[explain.Partly]+counts[explain.Unexplained] > 0 || log.Dropped > 0:
		return exitFindings
	}
	return exitClean
}

// describeEntries says what was read, for the message about input with
// nothing to explain.
func describeEntries(m map[string]int) string {
	if len(m) == 0 {
		return "no server log entries, driver errors or psql rows recognised"
	}
	var parts []string
	for _, k := range []string{"stderr", "csvlog", "jsonlog", "pgx", "pq", "driver", "psql", "psql-csv"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	return "read " + strings.Join(parts, ", ") + " entries"
}

// writeExplainText prints the explanations for people.
func writeExplainText(w io.Writer, name string, exps []*explain.Explanation) error {
	var b strings.Builder
	for i, x := range exps {
		if i > 0 {
			b.WriteString("\n")
		}
		writeExplanation(&b, name, x)
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}

func writeExplanation(b *strings.Builder, name string, x *explain.Explanation) {
	r := x.Report
	fmt.Fprintf(b, "%s:%d: %s", name, r.Line, explainHeadline(r))
	if r.Time != "" {
		fmt.Fprintf(b, " at %s", r.Time)
	}
	fmt.Fprintf(b, ": %s\n", statusText(x.Status))
	for i, p := range r.Processes {
		pe := x.Processes[i]
		fmt.Fprintf(b, "  process %d", p.PID)
		if p.Victim {
			b.WriteString(" (cancelled)")
		}
		if p.Waits != nil {
			fmt.Fprintf(b, " waits for %s", p.Waits.Text)
			if pe.Lock != "" {
				fmt.Fprintf(b, " [%s]", pe.Lock)
			}
		} else {
			b.WriteString(" holds the lock")
		}
		if len(p.BlockedBy) > 0 {
			fmt.Fprintf(b, ", blocked by %s", pids(p.BlockedBy))
		}
		b.WriteString("\n")
		if p.Statement != "" {
			fmt.Fprintf(b, "    statement: %s\n", oneLine(p.Statement))
		}
		for _, c := range pe.Candidates {
			how := "same statement"
			switch c.Match {
			case explain.MatchPart:
				how = "one statement of its string"
			case explain.MatchShape:
				how = "same kind of statement on the same tables"
			}
			where := "autocommit"
			switch {
			case c.Tx:
				where = "in a transaction"
			case c.Caller:
				where = "on the caller's handle"
			}
			via := ""
			if c.Via != "" {
				via = ", run by " + c.Via
			}
			fmt.Fprintf(b, "    runs at:   %s in %s (%s, %s%s)\n", c.Pos, c.Func, how, where, via)
		}
		if pe.MoreCandidates > 0 {
			fmt.Fprintf(b, "               and %d more call sites\n", pe.MoreCandidates)
		}
		for _, pa := range pe.Paths {
			fmt.Fprintf(b, "    path:      %s holds %s, taken at %s, while waiting for %s at %s\n", pa.Func, pa.Holds, pa.HeldAt, pa.Waits, pa.WaitsAt)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	for _, f := range x.Findings {
		what := "explained by"
		if !f.Full {
			what = "partly explained by"
		}
		fmt.Fprintf(b, "  %s: %s: %s [%s]\n", what, f.Posn, f.Summary, f.Category)
		if f.Fix != "" {
			fmt.Fprintf(b, "    fix: %s\n", f.Fix)
		}
	}
	for _, y := range x.Why {
		fmt.Fprintf(b, "  not explained: %s\n", y)
	}
}

func explainHeadline(r *explain.Report) string {
	n := len(r.Processes)
	switch r.Kind {
	case explain.Deadlock:
		s := fmt.Sprintf("deadlock detected between %d processes", n)
		if r.Truncated {
			s += " (report incomplete)"
		}
		return s
	case explain.Hang:
		return "lock wait that never ended in a deadlock error (a cycle through the application, or a long transaction)"
	}
	return fmt.Sprintf("blocked processes (%d) from a pg_locks query", n)
}

func statusText(s explain.Status) string {
	switch s {
	case explain.Explained:
		return "explained by a finding"
	case explain.Partly:
		return "explained only partly"
	}
	return "not explained"
}

func pids(ps []int) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}

// oneLine shows a statement on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// writeExplainJSON prints the explanations as one JSON document.
func writeExplainJSON(w io.Writer, name string, exps []*explain.Explanation, log *explain.Log) error {
	doc := struct {
		Input   string                 `json:"input"`
		Lines   int                    `json:"lines"`
		Reports []*explain.Explanation `json:"reports"`
		Dropped int                    `json:"dropped,omitempty"`
	}{name, log.Stats.Lines, exps, log.Dropped}
	if doc.Reports == nil {
		doc.Reports = []*explain.Explanation{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "\t")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// explainRule is a SARIF rule of -explain.
type explainRule struct {
	id, name, short, help string
}

// explainRules are the SARIF rules of -explain: one per status.
var explainRules = []explainRule{
	{"deadlock-explained", "DeadlockExplained", "A logged deadlock that a pglockorder finding explains",
		"A deadlock (or hang) from the input whose processes' statements run at the code paths of a pglockorder finding: fix the finding."},
	{"deadlock-partly-explained", "DeadlockPartlyExplained", "A logged deadlock only partly placed in the code",
		"Some statements of a deadlock (or hang) from the input run at the call sites shown, but no finding accounts for the whole cycle; the message says what is missing."},
	{"deadlock-unexplained", "DeadlockUnexplained", "A logged deadlock whose statements were not found in the code",
		"No statement of a deadlock (or hang) from the input was found in the analysed code: the SQL is built at run time, runs elsewhere, or the log does not give it."},
}

// writeExplainSARIF prints one SARIF result per report, located at the
// call sites of its statements.
func writeExplainSARIF(w io.Writer, exps []*explain.Explanation) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "pglockorder", InformationURI: analyzer.Analyzer.URL}}, Results: []sarifResult{}}
	for _, r := range explainRules {
		sr := sarifRule{ID: r.id, Name: r.name, ShortDescription: sarifMessage{Text: r.short},
			FullDescription: sarifMessage{Text: r.help}, Help: sarifMessage{Text: r.help}, HelpURI: analyzer.Analyzer.URL}
		sr.DefaultConfiguration.Level = "warning"
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, x := range exps {
		idx, level := 2, "warning"
		switch x.Status {
		case explain.Explained:
			idx, level = 0, "note"
		case explain.Partly:
			idx = 1
		}
		var b strings.Builder
		writeExplanation(&b, "input", x)
		res := sarifResult{RuleID: explainRules[idx].id, RuleIndex: idx, Level: level,
			Message: sarifMessage{Text: escapeBrackets(strings.TrimSpace(b.String()))}, Locations: []sarifLocation{},
			PartialFingerprints: map[string]string{}}
		seen := map[string]bool{}
		for _, pe := range x.Processes {
			for _, c := range pe.Candidates {
				if seen[c.Pos] {
					continue
				}
				seen[c.Pos] = true
				loc := sarifLocation{PhysicalLocation: physical(c.Pos), Message: &sarifMessage{Text: fmt.Sprintf("process %d's statement, in %s", pe.PID, c.Func)}}
				if len(res.Locations) == 0 {
					res.Locations = append(res.Locations, loc)
				} else {
					res.RelatedLocations = append(res.RelatedLocations, loc)
				}
			}
		}
		for _, f := range x.Findings {
			if !seen[f.Posn] {
				seen[f.Posn] = true
				res.RelatedLocations = append(res.RelatedLocations, sarifLocation{PhysicalLocation: physical(f.Posn), Message: &sarifMessage{Text: f.Summary}})
			}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("writing SARIF: %w", err)
	}
	return nil
}
