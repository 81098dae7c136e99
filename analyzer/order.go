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
	"github.com/pglockorder/pglockorder/analyzer/sqlsite"
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
	Order    []string          `yaml:"order"`
	Dialects map[string]string `yaml:"dialects"`
	Schema   *string           `yaml:"schema"`
}

// Config is the configuration file: the declared lock order, the dialects
// of packages that talk to other databases, and where the schema is.
type Config struct {
	// File is where the configuration was read from.
	File string
	// Order is the declared lock order; nil when the file declares none.
	Order *DeclaredOrder
	// Dialects maps package patterns (import paths, "..." wildcards, or
	// "./dir/..." relative to the module root) to the SQL dialect their
	// statements are in (see sqlsite.Dialects).
	Dialects map[string]string
	// Schema is the schema: key, as -schema takes it ("none" turns the
	// search for migrations off); relative paths are from the file's
	// directory. Empty when absent.
	Schema string
}

// ParseDeclaredOrder reads a declared order. The decoding is strict: an
// unknown key, a duplicate name or an empty list is an error, because a
// gate whose configuration is silently half-read checks less than it says.
func ParseDeclaredOrder(file string, data []byte) (*DeclaredOrder, error) {
	c, err := ParseConfig(file, data)
	if err != nil {
		return nil, err
	}
	if c.Order == nil {
		return nil, fmt.Errorf("%s: no order: list", file)
	}
	return c.Order, nil
}

// ParseConfig reads a configuration file, as strictly as
// ParseDeclaredOrder: it must say something (an order, dialects or a
// schema), and what it says must be well formed.
func ParseConfig(file string, data []byte) (*Config, error) {
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
	c := &Config{File: file}
	if doc.Schema != nil {
		if c.Schema = strings.TrimSpace(*doc.Schema); c.Schema == "" {
			return nil, fmt.Errorf("%s: schema: is empty (use a path, or none)", file)
		}
	}
	if len(doc.Dialects) > 0 {
		c.Dialects = map[string]string{}
		for pat, d := range doc.Dialects {
			pat, d = strings.TrimSpace(pat), strings.ToLower(strings.TrimSpace(d))
			if d == "postgres" {
				d = sqlsite.PostgreSQL
			}
			switch {
			case pat == "":
				return nil, fmt.Errorf("%s: dialects: an empty package pattern", file)
			case !slices.Contains(sqlsite.Dialects, d):
				return nil, fmt.Errorf("%s: dialects: %s: unknown dialect %q (known: %s)", file, pat, d, strings.Join(sqlsite.Dialects, ", "))
			}
			c.Dialects[pat] = d
		}
	}
	if doc.Order == nil {
		if c.Dialects == nil && doc.Schema == nil {
			return nil, fmt.Errorf("%s: want an order: list (or dialects: or schema:)", file)
		}
		return c, nil
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
	c.Order = &DeclaredOrder{File: file, Order: names}
	return c, nil
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

// configs caches the configuration files read, by file name.
var configs sync.Map // string -> configEntry

type configEntry struct {
	config *Config
	err    error
}

// declaredOrder returns the order that applies to the pass's package, or
// nil when there is none.
func declaredOrder(pass *analysis.Pass) (*DeclaredOrder, error) {
	c, err := passConfig(pass)
	if c == nil || err != nil {
		return nil, err
	}
	return c.Order, nil
}

// passConfig returns the configuration that applies to the pass's package
// (the config flag, or ConfigFile at its module's root), or nil.
func passConfig(pass *analysis.Pass) (*Config, error) {
	root := ""
	if len(pass.Files) > 0 {
		root = moduleRoot(filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name()))
	}
	return configAt(root)
}

// ModuleConfig returns the configuration for the module rooted at root
// (the config flag, or ConfigFile there), or nil when there is none.
func ModuleConfig(root string) (*Config, error) { return configAt(root) }

// configAt returns the configuration for a package of the module rooted at
// root, or nil.
func configAt(root string) (*Config, error) {
	file, explicit := configPath, configPath != ""
	if !explicit {
		if root == "" {
			return nil, nil
		}
		file = filepath.Join(root, ConfigFile)
	} else if !filepath.IsAbs(file) && root != "" {
		file = filepath.Join(root, file)
	}
	if e, ok := configs.Load(file); ok {
		return e.(configEntry).config, e.(configEntry).err
	}
	var e configEntry
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		e.config, e.err = ParseConfig(file, data)
	case explicit || !errors.Is(err, os.ErrNotExist):
		e.err = fmt.Errorf("reading the configuration: %w", err)
	}
	configs.Store(file, e)
	return e.config, e.err
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
