package analyzer

import (
	"go/token"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/report"
)

// related turns a finding's related positions into the pass's
// analysis.RelatedInformation, so that every driver (go vet -json, the
// command's formats, editors through gopls) reads each path's steps as
// structure rather than from the message. A token.Pos exists only in the
// pass's FileSet: a position in a file it does not hold (a package that
// go vet saw only through export data) is left out; the message still names
// it.
func related(pass *analysis.Pass, rs []report.Related) []analysis.RelatedInformation {
	if len(rs) == 0 {
		return nil
	}
	files := map[string]*token.File{}
	pass.Fset.Iterate(func(f *token.File) bool {
		files[f.Name()] = f
		return true
	})
	out := make([]analysis.RelatedInformation, 0, len(rs))
	for _, r := range rs {
		if pos := posIn(files[r.Pos.Filename], r.Pos); pos.IsValid() {
			out = append(out, analysis.RelatedInformation{Pos: pos, Message: r.Message})
		}
	}
	return out
}

// posIn returns the token.Pos of p in f, or token.NoPos when f is nil or
// does not reach p.
func posIn(f *token.File, p token.Position) token.Pos {
	if f == nil || p.Line < 1 || p.Line > f.LineCount() {
		return token.NoPos
	}
	start := f.LineStart(p.Line)
	off := f.Offset(start) + max(p.Column-1, 0)
	if off > f.Size() {
		return start
	}
	return f.Pos(off)
}
