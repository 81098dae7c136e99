package analyzer

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"gopkg.in/yaml.v3"

	"github.com/pglockorder/pglockorder/analyzer/category"
	"github.com/pglockorder/pglockorder/analyzer/lockgraph"
	"github.com/pglockorder/pglockorder/analyzer/lockmodel"
	"github.com/pglockorder/pglockorder/analyzer/lockseq"
	"github.com/pglockorder/pglockorder/analyzer/report"
)

// CategoryDeclaredOrder is the category of an acquisition against the
// declared lock order.
const CategoryDeclaredOrder = category.DeclaredLockOrder

// ConfigFile is the declared lock order's file name at a module root.
const ConfigFile = ".pglockorder.yaml"

// configPath is the config flag: the declared order's file. Empty looks for
// ConfigFile at the root of the analysed package's module; a relative path
// is taken from there too, so that go vet (which runs in each package's
// directory) and golangci-lint find the same file.
var configPath string

func init() {
	Analyzer.Flags.StringVar(&configPath, "config", "",
		"declared lock order `file` (default "+ConfigFile+" at the module root, if present)")
}

// DeclaredOrder is the canonical order of locks a team declares: each name
// is a table (its rows and the table itself) or an advisory key class as
// pglockorder names it ("advisory:(501)"). A lock may be requested while
// holding only locks that come before it; names not listed are free.
type DeclaredOrder struct {
	// File is where the order was read from.
	File string
	// Order lists the names, first to be locked first.
	Order []string
}

// configDoc is the file's shape; unknown keys are an error.
type configDoc struct {
	Order []string `yaml:"order"`
}

// ParseDeclaredOrder reads a declared order. The decoding is strict: an
// unknown key, a duplicate name or an empty list is an error, because a
// gate whose configuration is silently half-read checks less than it says.
func ParseDeclaredOrder(file string, data []byte) (*DeclaredOrder, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var doc configDoc
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty; want an order: list", file)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var more configDoc
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document", file)
	}
	if len(doc.Order) == 0 {
		return nil, fmt.Errorf("%s: the order: list is empty", file)
	}
	seen := map[string]bool{}
	names := make([]string, 0, len(doc.Order))
	for _, n := range doc.Order {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("%s: an empty name in the order list", file)
		case seen[n]:
			return nil, fmt.Errorf("%s: %q is listed twice in the order list", file, n)
		}
		seen[n] = true
		names = append(names, n)
	}
	return &DeclaredOrder{File: file, Order: names}, nil
}

// OrderName is the name a lock class has in a declared order: the table of
// a row or table lock, the class of an advisory key; "" for an advisory
// lock whose key is unknown before run time, which no order can name.
func OrderName(class lockgraph.Class) string {
	switch {
	case class.IsRow(), class.IsTable():
		return class.Name
	case class.Kind == lockgraph.AdvisoryKey && !class.Parametric():
		return class.String()
	}
	return ""
}

// Ordered reports whether an edge takes part in a lock order: its request
// waits, and neither end is a table lock in a mode that plain DML takes
// implicitly (ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE, SHARE UPDATE
// EXCLUSIVE). Those conflict only with LOCK TABLE in strong modes and DDL,
// which take the table first; counting them would make every read of a
// table before a write to another an ordering between the two tables.
func Ordered(e *lockgraph.Edge) bool {
	return e.Wanted.Waits && !weakTable(e.Held) && !weakTable(e.Wanted)
}

func weakTable(l lockgraph.Lock) bool {
	return l.Class.IsTable() && !lockmodel.ModesConflict(l.Mode, lockmodel.RowExclusive)
}

// Violation reports whether requesting wanted while holding held goes
// against the order, with the two names' positions in it.
func (o *DeclaredOrder) Violation(held, wanted lockgraph.Class) (bool, int, int) {
	h, w := slices.Index(o.Order, OrderName(held)), slices.Index(o.Order, OrderName(wanted))
	return h >= 0 && w >= 0 && w < h, h, w
}

// orders caches the declared orders read, by file name.
var orders sync.Map // string -> orderEntry

type orderEntry struct {
	order *DeclaredOrder
	err   error
}

// declaredOrder returns the order that applies to the pass's package, or
// nil when there is none.
func declaredOrder(pass *analysis.Pass) (*DeclaredOrder, error) {
	root := ""
	if len(pass.Files) > 0 {
		root = moduleRoot(filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name()))
	}
	file, explicit := configPath, configPath != ""
	if !explicit {
		if root == "" {
			return nil, nil
		}
		file = filepath.Join(root, ConfigFile)
	} else if !filepath.IsAbs(file) && root != "" {
		file = filepath.Join(root, file)
	}
	if e, ok := orders.Load(file); ok {
		return e.(orderEntry).order, e.(orderEntry).err
	}
	var e orderEntry
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		e.order, e.err = ParseDeclaredOrder(file, data)
	case explicit || !errors.Is(err, os.ErrNotExist):
		e.err = fmt.Errorf("reading the declared lock order: %w", err)
	}
	orders.Store(file, e)
	return e.order, e.err
}

// checkDeclaredOrder reports, at the request, every lock the package's own
// functions request while holding one that the declared order puts after
// it. It needs no other package: a per-package driver checks the order
// where it cannot see a cycle's other paths.
func checkDeclaredOrder(pass *analysis.Pass, an *lockseq.Analysis) error {
	o, err := declaredOrder(pass)
	if o == nil || err != nil {
		return err
	}
	type key struct {
		pos          token.Pos
		held, wanted string
	}
	seen := map[key]bool{}
	var edges []*lockgraph.Edge
	for e := range an.EdgePos {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, lockgraph.Compare)
	for _, e := range edges {
		bad, _, _ := o.Violation(e.Held.Class, e.Wanted.Class)
		if !bad || !Ordered(e) {
			continue
		}
		pos := an.EdgePos[e]
		k := key{pos, OrderName(e.Held.Class), OrderName(e.Wanted.Class)}
		if seen[k] {
			continue
		}
		seen[k] = true
		emit(pass, analysis.Diagnostic{Pos: pos, Category: CategoryDeclaredOrder, Message: o.message(e),
			Related: related(pass, report.EdgeRelated(e, e.Func))})
	}
	return nil
}

func (o *DeclaredOrder) message(e *lockgraph.Edge) string {
	held, wanted := OrderName(e.Held.Class), OrderName(e.Wanted.Class)
	taken := ""
	if len(e.HeldPath) > 0 {
		taken = ", taken at " + relPosition(e.HeldPath[len(e.HeldPath)-1].Pos)
	}
	return fmt.Sprintf("declared lock order violated: %s requests %s while holding %s%s; the declared order (%s) "+
		"puts %s before %s: %s", e.Func, e.Wanted, e.Held, taken, moduleRelative(o.File), wanted, held,
		strings.Join(o.Order, " < "))
}
