package analyzer

import (
	"fmt"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// CategoryIgnore is the category of a malformed or stale
// //pglockorder:ignore directive.
const CategoryIgnore = category.IgnoreDirective

// ignorePrefix starts a suppression comment: "//pglockorder:ignore reason".
const ignorePrefix = "//pglockorder:ignore"

// Ignore is a //pglockorder:ignore directive. It suppresses the findings
// reported on its own line (a trailing comment) or on the line below it (a
// comment above the statement). The reason is required: a suppression
// without one cannot be reviewed.
type Ignore struct {
	// File is the file's name as the FileSet knows it, Line the
	// comment's line, Posn its "file:line:col".
	File string
	Line int
	Posn string
	// Pkg is the path of the directive's package.
	Pkg string
	// Reason is the text after the directive.
	Reason string
	// Used is set when the directive suppressed a finding.
	Used bool
}

// Matches reports whether the directive covers a finding at file:line.
func (ig *Ignore) Matches(file string, line int) bool {
	return ig.File == file && (line == ig.Line || line == ig.Line+1)
}

// ignores filters a pass's diagnostics through the package's directives.
type ignores struct {
	pass   *analysis.Pass
	report func(analysis.Diagnostic)
	list   []*Ignore
	pos    []token.Pos
	// remote holds, by file and line, where a finding could be reported
	// that a per-package driver may not see: the anchor of a lock-order
	// edge (a cycle whose other paths are in packages this one does not
	// import) and an ordered multi-row lock (a row-order mismatch with
	// such a package).
	remote map[string]map[int]bool
}

// withIgnores returns a copy of pass whose Report drops the diagnostics an
// ignore directive covers; finish reports the directives that are
// malformed or suppress nothing.
func withIgnores(pass *analysis.Pass) (*analysis.Pass, *ignores) {
	ig := &ignores{pass: pass, report: pass.Report}
	for _, f := range pass.Files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				rest, ok := strings.CutPrefix(c.Text, ignorePrefix)
				if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
					continue
				}
				p := pass.Fset.Position(c.Slash)
				ig.list = append(ig.list, &Ignore{Pkg: pass.Pkg.Path(), File: p.Filename, Line: p.Line, Posn: p.String(), Reason: strings.TrimSpace(rest)})
				ig.pos = append(ig.pos, c.Slash)
			}
		}
	}
	if len(ig.list) == 0 {
		return pass, ig
	}
	filtered := *pass
	filtered.Report = func(d analysis.Diagnostic) {
		p := pass.Fset.Position(d.Pos)
		for _, x := range ig.list {
			if x.Reason != "" && x.Matches(p.Filename, p.Line) {
				x.Used = true
				return
			}
		}
		ig.report(d)
	}
	return &filtered, ig
}

// mayBeRemote records where the package's edges and ordered locks are: a
// finding anchored there may involve packages outside this package's
// imports, which only the whole-program command sees. Only edges that can
// be a step of such a cycle count, so that a directive above the first
// statement of a transaction is still stale for every driver.
func (ig *ignores) mayBeRemote(edges []*lockgraph.Edge, ordered []lockseq.OrderedLock) {
	ig.remote = map[string]map[int]bool{}
	add := func(pos token.Position) {
		if !pos.IsValid() {
			return
		}
		if ig.remote[pos.Filename] == nil {
			ig.remote[pos.Filename] = map[int]bool{}
		}
		ig.remote[pos.Filename][pos.Line] = true
	}
	for _, e := range edges {
		// A cycle of several packages needs two different locks, the
		// second of which waits; a lock and its own upgrade make a
		// cycle this package sees alone, and the table locks plain DML
		// takes (ROW EXCLUSIVE before the rows of one statement) order
		// nothing.
		if e.Held.Class != e.Wanted.Class && Ordered(e) {
			add(e.Anchor())
		}
	}
	for _, o := range ordered {
		add(o.Pos)
	}
}

// seenElsewhere reports whether the directive covers a line where a
// finding that this driver cannot see may be reported.
func (ig *ignores) seenElsewhere(x *Ignore) bool {
	lines := ig.remote[x.File]
	return lines[x.Line] || lines[x.Line+1]
}

// finish reports the directives without a reason and, unless a
// whole-program driver matches its own findings against them (it gets
// them in res), those that suppressed nothing. A per-package driver (go
// vet, golangci-lint) sees a cycle only when the package imports the
// packages of its other paths: it reports a directive as stale only where
// no finding it cannot see could be reported, so that one directive
// satisfies every driver; the whole-program command, which sees every
// finding, reports every stale directive.
func (ig *ignores) finish(res *Result) {
	for i, x := range ig.list {
		if x.Reason == "" {
			ig.report(analysis.Diagnostic{Pos: ig.pos[i], Category: CategoryIgnore,
				Message: "pglockorder:ignore needs a reason: //pglockorder:ignore <why this finding is safe>"})
			continue
		}
		if deferred {
			res.Ignores = append(res.Ignores, *x)
			continue
		}
		if !x.Used && !ig.seenElsewhere(x) {
			ig.report(analysis.Diagnostic{Pos: ig.pos[i], Category: CategoryIgnore, Message: UnusedIgnoreMessage(x.Reason)})
		}
	}
}

// UnusedIgnoreMessage is the message for a directive that suppresses
// nothing.
func UnusedIgnoreMessage(reason string) string {
	return fmt.Sprintf("pglockorder:ignore (%s) suppresses nothing: no finding is reported on this line or the next; remove it", reason)
}
