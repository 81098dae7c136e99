package analyzer

import (
	"bytes"
	"encoding/gob"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// debugOut receives -debug messages.
var debugOut = os.Stderr

// debugFactSize prints, with -debug, the size of the package fact go vet
// writes for the package: it carries edges of the import closure, so its
// size is what grows with a monorepo.
func debugFactSize(pass *analysis.Pass, info *PackageInfo) {
	if !debugMode {
		return
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(info); err != nil {
		debugf(pass)("encoding the package fact: %v", err)
		return
	}
	debugf(pass)("package fact: %d edges, %d bytes", len(info.Edges), buf.Len())
}

// debugSkipped prints, with -debug, the SQL of the package that was not
// analysed. The whole-program command prints the run's list itself.
func debugSkipped(pass *analysis.Pass, skips []lockseq.Skip) {
	if !debugMode {
		return
	}
	for _, s := range skips {
		debugf(pass)("%s", s)
	}
}

// debugDispatch prints, with -debug, the calls through interfaces that had
// too many implementations to follow. The whole-program command prints the
// run's list itself.
func debugDispatch(pass *analysis.Pass, st lockseq.DispatchStats) {
	if !debugMode {
		return
	}
	for _, s := range st.Unfollowed {
		debugf(pass)("call not followed: %s", strings.Replace(s, "\t", ": ", 1))
	}
}
