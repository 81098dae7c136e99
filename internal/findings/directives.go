package findings

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/pglockorder/pglockorder/internal/category"
)

// directivePrefix starts a suppression comment: "//pglockorder:ignore reason".
const directivePrefix = "//pglockorder:ignore"

// Directive is a //pglockorder:ignore comment. It suppresses the findings
// reported on its own line (a trailing comment) or on the line below it (a
// comment above the statement). The reason is required: a suppression
// without one cannot be reviewed.
type Directive struct {
	// Pos is the comment's position.
	Pos token.Position
	// Pkg is the import path of the directive's package.
	Pkg string
	// Reason is the text after the directive.
	Reason string
}

// Directives returns the //pglockorder:ignore comments of a package's files.
func Directives(fset *token.FileSet, files []*ast.File, pkg string) []Directive {
	var out []Directive
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				rest, ok := strings.CutPrefix(c.Text, directivePrefix)
				if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
					continue
				}
				out = append(out, Directive{Pos: fset.Position(c.Slash), Pkg: pkg, Reason: strings.TrimSpace(rest)})
			}
		}
	}
	return out
}

// Covers reports whether the directive suppresses a finding at p.
func (d *Directive) Covers(p token.Position) bool {
	return d.Reason != "" && d.Pos.Filename == p.Filename && (p.Line == d.Pos.Line || p.Line == d.Pos.Line+1)
}

// Suppress drops the findings a directive covers, and adds a finding for
// each directive without a reason and for each that covers nothing where
// stale says it may be reported (nil: everywhere). A per-package driver
// does not see the findings whose other paths are in packages it does not
// import: its stale function keeps quiet about the directives on lines
// where such a finding could be reported, so that one directive satisfies
// every driver. A package and its test variant share their files: their
// directives at one position are one.
func Suppress(fs []Finding, directives []Directive, stale func(*Directive) bool) []Finding {
	if len(directives) == 0 {
		return fs
	}
	type entry struct {
		d    *Directive
		used bool
	}
	var list []*entry
	seen := map[token.Position]bool{}
	for i := range directives {
		d := &directives[i]
		if !seen[d.Pos] {
			seen[d.Pos] = true
			list = append(list, &entry{d: d})
		}
	}
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		covered := false
		for _, e := range list {
			if e.d.Covers(f.Pos) {
				e.used, covered = true, true
			}
		}
		if !covered {
			out = append(out, f)
		}
	}
	for _, e := range list {
		switch {
		case e.d.Reason == "":
			out = append(out, Finding{Pkg: e.d.Pkg, Pos: e.d.Pos, Category: category.IgnoreDirective,
				Message: "pglockorder:ignore needs a reason: //pglockorder:ignore <why this finding is safe>"})
		case !e.used && (stale == nil || stale(e.d)):
			out = append(out, Finding{Pkg: e.d.Pkg, Pos: e.d.Pos, Category: category.IgnoreDirective, Message: UnusedMessage(e.d.Reason)})
		}
	}
	return out
}

// UnusedMessage is the message for a directive that suppresses nothing.
func UnusedMessage(reason string) string {
	return fmt.Sprintf("pglockorder:ignore (%s) suppresses nothing: no finding is reported on this line or the next; remove it", reason)
}
