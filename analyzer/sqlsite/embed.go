package sqlsite

import (
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// embedCache maps "file:line" of a variable declaration to its *embedded
// text, so that a file is read once however often the query is resolved.
var embedCache sync.Map

type embedded struct {
	text string
	ok   bool
}

// embedText returns the text of the file a string variable is initialised
// with by a //go:embed directive (//go:embed lock_job.sql above var lockJob
// string): the compiler fills such a variable, so no store to it appears
// in the package's init function. Only a directive naming one file, with
// no pattern characters, is read; the file is found next to the Go file,
// as the go command finds it.
func embedText(g *ssa.Global) (string, bool) {
	obj, ok := g.Object().(*types.Var)
	if !ok || !isString(obj.Type()) || g.Pkg == nil || g.Pkg.Prog == nil || g.Pkg.Prog.Fset == nil {
		return "", false
	}
	pos := g.Pkg.Prog.Fset.Position(obj.Pos())
	if pos.Filename == "" || pos.Line < 2 {
		return "", false
	}
	key := fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
	if e, ok := embedCache.Load(key); ok {
		e := e.(embedded)
		return e.text, e.ok
	}
	text, ok := readEmbed(pos.Filename, pos.Line)
	embedCache.Store(key, embedded{text, ok})
	return text, ok
}

// readEmbed reads the file named by the //go:embed directive in the
// comment lines just above line of the Go file.
func readEmbed(goFile string, line int) (string, bool) {
	src, err := os.ReadFile(goFile)
	if err != nil {
		return "", false
	}
	lines := strings.Split(string(src), "\n")
	if line-1 > len(lines) {
		return "", false
	}
	for i := line - 2; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "//") {
			break
		}
		rest, ok := strings.CutPrefix(l, "//go:embed ")
		if !ok {
			continue
		}
		pats := strings.Fields(rest)
		if len(pats) != 1 || strings.ContainsAny(pats[0], "*?[\"`") {
			return "", false
		}
		name := filepath.Join(filepath.Dir(goFile), filepath.FromSlash(pats[0]))
		data, err := os.ReadFile(name)
		if err != nil {
			return "", false
		}
		return string(data), true
	}
	return "", false
}
