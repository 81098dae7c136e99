package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// gate holds the flags that make the command a pre-merge gate: output
// formats, baseline, graphs and the suggested order. run.go calls it at
// three points: after parsing the flags (check), after collecting the
// findings (apply), and to print them (write).
type gate struct {
	format        string
	baseline      string
	writeBaseline string
	graph         string
	suggestOrder  bool
	config        string
	// color is set for text output to a terminal without NO_COLOR.
	color bool
	// rel shows a position as the messages do (set by apply).
	rel func(string) string
	// info describes the run for the formats that record it (SARIF).
	info runInfo
}

// formatter writes the run's findings in one output format.
type formatter interface {
	format(w io.Writer, findings []finding, o formatOptions) error
}

// formatOptions are what some formats need beside the findings.
type formatOptions struct {
	// color is set for text output to a terminal without NO_COLOR.
	color bool
	// rel shows a position as the messages do.
	rel func(string) string
	// info describes the run (SARIF records it).
	info runInfo
}

// formatFunc is a function that is a formatter.
type formatFunc func(w io.Writer, findings []finding, o formatOptions) error

func (f formatFunc) format(w io.Writer, findings []finding, o formatOptions) error {
	return f(w, findings, o)
}

// formats are the values of -format, in the order its help lists them. An
// output format is a format_NAME.go file with its writer, and its line
// here.
var formats = []struct {
	name string
	formatter
}{
	{"text", formatFunc(func(w io.Writer, fs []finding, o formatOptions) error { return writeText(w, fs, o.color) })},
	{"json", formatFunc(func(w io.Writer, fs []finding, _ formatOptions) error { return printJSON(w, fs) })},
	{"sarif", formatFunc(func(w io.Writer, fs []finding, o formatOptions) error { return writeSARIF(w, fs, o.rel, o.info) })},
	{"github", formatFunc(func(w io.Writer, fs []finding, _ formatOptions) error { return writeGitHub(w, fs) })},
}

// formatNamed returns the formatter of -format=name.
func formatNamed(name string) (formatter, bool) {
	for _, f := range formats {
		if f.name == name {
			return f.formatter, true
		}
	}
	return nil, false
}

// formatNames lists the names of the formats.
func formatNames() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}

// register defines the gate's flags on fs.
func (g *gate) register(fs *flag.FlagSet) {
	fs.StringVar(&g.format, "format", "text", "output `format`: text, json (as -json), sarif (SARIF 2.1.0) or github (workflow-command annotations)")
	fs.StringVar(&g.baseline, "baseline", "", "report only findings that are not in the baseline `file` (see -write-baseline)")
	fs.StringVar(&g.writeBaseline, "write-baseline", "", "write today's findings to the baseline `file` and exit 0")
	fs.StringVar(&g.graph, "graph", "", "print the lock-order graph as `mermaid` or dot instead of the findings")
	fs.BoolVar(&g.suggestOrder, "suggest-order", false, "print a lock order consistent with the code, or the cycles that prevent one")
	fs.StringVar(&g.config, "config", "", "declared lock order `file` (default "+analyzer.ConfigFile+" at the module root, if present)")
	fs.StringVar(&pathPrefix, "path-prefix", "", "`dir` to put before relative file names in SARIF and GitHub annotations (a module in a subdirectory of the repository)")
}

// check validates the gate's flags once parsed; jsonFlag is -json.
func (g *gate) check(jsonFlag bool, stdout io.Writer) error {
	if jsonFlag {
		if g.format != "text" && g.format != "json" {
			return fmt.Errorf("-json and -format=%s disagree", g.format)
		}
		g.format = "json"
	}
	if _, ok := formatNamed(g.format); !ok {
		return fmt.Errorf("-format must be one of %s, not %q", strings.Join(formatNames(), ", "), g.format)
	}
	if g.graph != "" && g.graph != "mermaid" && g.graph != "dot" {
		return fmt.Errorf("-graph must be mermaid or dot, not %q", g.graph)
	}
	if g.baseline != "" && g.writeBaseline != "" {
		return errors.New("-baseline and -write-baseline cannot be used together")
	}
	if g.graph != "" && g.suggestOrder {
		return errors.New("-graph and -suggest-order cannot be used together")
	}
	g.color = colorWanted(g.format, isTerminal(stdout), os.Getenv("NO_COLOR"))
	if g.baseline != "" {
		// Checked before the analysis, as -config is: a typo should not
		// cost a whole run.
		if _, err := os.Stat(g.baseline); err != nil {
			return fmt.Errorf("-baseline: %w", err)
		}
	}
	if g.config != "" {
		// The analyzer resolves a relative file against each module's
		// root; on the command line it means the working directory.
		abs, err := filepath.Abs(g.config)
		if err != nil {
			return fmt.Errorf("-config: %w", err)
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("-config: %w", err)
		}
		if err := analyzer.Analyzer.Flags.Set("config", abs); err != nil {
			return fmt.Errorf("-config: %w", err)
		}
	}
	return nil
}

// apply filters the findings through the baseline, or writes the baseline,
// and prints the graph or the suggested order when asked. It returns the
// findings to report, and done with an exit code when the run ends here.
// failed says that some package could not be analysed: a baseline written
// then would accept less than the code has.
func (g *gate) apply(stdout, stderr io.Writer, findings []finding, graph *lockgraph.Graph, cycles []*lockgraph.Cycle,
	rel func(string) string, failed bool) (out []finding, code int, done bool) {
	g.rel = rel
	if g.writeBaseline != "" {
		if failed {
			fmt.Fprintf(stderr, "pglockorder: not writing %s: some packages could not be analysed\n", g.writeBaseline)
			return nil, exitError, true
		}
		if err := writeBaselineFile(g.writeBaseline, findings); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return nil, exitError, true
		}
		fmt.Fprintf(stderr, "pglockorder: %d finding(s) written to %s\n", len(findings), g.writeBaseline)
		return nil, exitClean, true
	}
	if g.baseline != "" {
		b, err := readBaselineFile(g.baseline)
		if err != nil {
			// The user's input, as a -config file is: a usage error.
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return nil, exitUsage, true
		}
		var known, gone int
		findings, known, gone = b.filter(findings)
		if known > 0 {
			fmt.Fprintf(stderr, "pglockorder: %d finding(s) in the baseline %s not reported\n", known, g.baseline)
		}
		if gone > 0 {
			fmt.Fprintf(stderr, "pglockorder: %d finding(s) of the baseline %s are fixed: write it again to keep them from coming back unnoticed\n", gone, g.baseline)
		}
	}
	switch {
	case g.graph != "":
		if err := writeGraph(stdout, g.graph, graph, cycles); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return nil, exitError, true
		}
		return findings, 0, false
	case g.suggestOrder:
		if err := writeSuggestedOrder(stdout, graph, rel); err != nil {
			fmt.Fprintf(stderr, "pglockorder: %v\n", err)
			return nil, exitError, true
		}
		return findings, 0, false
	}
	return findings, 0, false
}

// printsFindings reports whether the findings themselves go to standard
// output (not a graph or an order instead).
func (g *gate) printsFindings() bool {
	return g.graph == "" && !g.suggestOrder
}

// write prints the findings in the chosen format.
func (g *gate) write(w io.Writer, findings []finding) error {
	if !g.printsFindings() {
		return nil
	}
	f, ok := formatNamed(g.format)
	if !ok {
		return fmt.Errorf("no output format %q", g.format)
	}
	return f.format(w, findings, formatOptions{color: g.color, rel: g.rel, info: g.info})
}

// colorWanted decides on colour: text to a terminal, unless NO_COLOR is set
// to anything (https://no-color.org).
func colorWanted(format string, terminal bool, noColor string) bool {
	return format == "text" && terminal && noColor == ""
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// pathPrefix is the -path-prefix flag: where the directory the command runs
// in sits in the repository, for the formats whose readers resolve file
// names against the repository's root (SARIF, GitHub annotations).
var pathPrefix string

// withPathPrefix puts pathPrefix before a relative file name.
func withPathPrefix(file string) string {
	if pathPrefix == "" || filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(pathPrefix, file)
}
