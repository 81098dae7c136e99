package analyzer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"gopkg.in/yaml.v3"

	"github.com/pglockorder/pglockorder/internal/category"
	"github.com/pglockorder/pglockorder/internal/findings"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/report"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
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

// configKeys are the keys configDoc knows, for the error about another.
var configKeys = []string{"order", "dialects", "schema"}

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
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty; want an order: list", file)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document", file)
	}
	// Unknown keys are named in the file's terms, with their line (the
	// decoder's own error names a Go type).
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i]; !slices.Contains(configKeys, k.Value) {
				hint := ""
				if c := closest(k.Value, configKeys); c != "" {
					hint = fmt.Sprintf(" (did you mean %q?)", c)
				}
				return nil, fmt.Errorf("%s:%d: unknown key %q%s; the known keys are: %s", file, k.Line, k.Value, hint, strings.Join(configKeys, ", "))
			}
		}
	}
	var doc configDoc
	if err := root.Decode(&doc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: %s; want order: followed by a list of names", file, strings.Join(te.Errors, "; "))
		}
		return nil, fmt.Errorf("%s: %w", file, err)
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

// configs caches the configuration files parsed, by file name and content
// (configKey): a cache, not configuration. Each pass reads its module's
// file again, so a long-lived process sees an edited file.
var configs sync.Map // configKey -> configEntry

// configKey is a configuration file's name and the SHA-256 of its content.
type configKey struct {
	file string
	sum  [sha256.Size]byte
}

type configEntry struct {
	config *Config
	err    error
}

// passConfig returns the configuration that applies to the pass's package
// (the config flag, or ConfigFile at its module's root), or nil. Every
// package of a module reads the same file: an error in it is printed in
// full for one package of the run only (see reportHere), not once per
// package.
func passConfig(pass *analysis.Pass) (*Config, error) {
	root := ""
	if len(pass.Files) > 0 {
		root = moduleRoot(filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name()))
	}
	c, file, err := configAt(root)
	if err != nil && !reportHere(pass.Pkg, file) {
		// Another package of the run prints the error and fails it.
		return nil, nil
	}
	return c, err
}

// ModuleConfig returns the configuration for the module rooted at root
// (the config flag, or ConfigFile there), or nil when there is none.
func ModuleConfig(root string) (*Config, error) {
	c, _, err := configAt(root)
	return c, err
}

// DeclaredOrderAt returns the declared order that applies to the packages
// of the module rooted at root ("" when unknown), or nil when there is
// none, and the file it is (or would be) read from.
func DeclaredOrderAt(root string) (*DeclaredOrder, string, error) {
	c, file, err := configAt(root)
	if c == nil || err != nil {
		return nil, file, err
	}
	return c.Order, file, nil
}

// configAt returns the configuration for a package of the module rooted at
// root, or nil, and the file it is (or would be) read from.
func configAt(root string) (*Config, string, error) {
	file, explicit := configPath, configPath != ""
	if !explicit {
		if root == "" {
			return nil, "", nil
		}
		file = filepath.Join(root, ConfigFile)
	} else if !filepath.IsAbs(file) && root != "" {
		file = filepath.Join(root, file)
	}
	// The file is outside the package: go vet's cache does not see it
	// (see doc.go); the command's cache hashes it (cmd/pglockorder).
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
	case explicit || !errors.Is(err, os.ErrNotExist):
		return nil, file, fmt.Errorf("reading the configuration: %w", err)
	default:
		return nil, file, nil
	}
	k := configKey{file, sha256.Sum256(data)}
	if e, ok := configs.Load(k); ok {
		return e.(configEntry).config, file, e.(configEntry).err
	}
	var e configEntry
	e.config, e.err = ParseConfig(file, data)
	configs.Store(k, e)
	return e.config, file, e.err
}

// declaredOrderFindings returns, at the request, every lock the package's
// own functions request while holding one that the declared order puts
// after it. It needs no other package: a per-package driver checks the
// order where it cannot see a cycle's other paths.
func declaredOrderFindings(res *Result, fset *token.FileSet, pkg string) []findings.Finding {
	o := res.Order
	if o == nil {
		return nil
	}
	type key struct {
		pos          token.Pos
		held, wanted string
	}
	seen := map[key]bool{}
	var edges []*lockgraph.Edge
	for e := range res.EdgePos {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, lockgraph.Compare)
	var out []findings.Finding
	for _, e := range edges {
		bad, _, _ := o.Violation(e.Held.Class, e.Wanted.Class)
		if !bad || !Ordered(e) {
			continue
		}
		pos := res.EdgePos[e]
		k := key{pos, OrderName(e.Held.Class), OrderName(e.Wanted.Class)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, findings.Finding{Pkg: pkg, Pos: fset.Position(pos), Category: CategoryDeclaredOrder, Message: o.message(e),
			Related: report.EdgeRelated(e, e.Func)})
	}
	return out
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

// reportHere reports whether this package reports the error of a
// configuration file. The command and golangci-lint analyse every package
// in one process: the first reports it, and the run fails. go vet runs one
// process per package: it gives each a configuration file in its run's own
// work directory ($WORK/b001/vet.cfg), and a marker created there
// exclusively elects the one that reports it; the marker goes away with
// the directory. The others pass silently: go vet caches only successes,
// so the elected package runs again, and fails again, on the next go vet
// run. A process that computes only facts for its importers (VetxOnly)
// prints no errors: it always fails with the error, so that its success is
// never cached for the package it stands for.
func reportHere(pkg *types.Package, file string) bool {
	// Several parts of one pass read the configuration (the dialects, the
	// schema, the order): the first to ask decides for the package.
	key := reporterKey{pkg, file}
	if d, ok := decided.Load(key); ok {
		return d.(bool)
	}
	d, _ := decided.LoadOrStore(key, electReporter(file))
	return d.(bool)
}

// reporterKey is a package asking whether it reports a file's error.
type reporterKey struct {
	pkg  *types.Package
	file string
}

// decided holds, per package and configuration file, whether the package
// reports the file's error; elected, per file, the packages of this process
// that were elected.
var decided, elected sync.Map

// electReporter decides whether the package asking first for a file (see
// reportHere) reports its error.
func electReporter(file string) bool {
	work, vetxOnly := vetRun(os.Args[1:])
	switch {
	case vetxOnly:
		return true
	case work == "":
		// The command and golangci-lint: the first package of the
		// process reports it.
		_, dup := elected.LoadOrStore(file, true)
		return !dup
	}
	sum := sha256.Sum256([]byte(file))
	marker := filepath.Join(work, "pglockorder-config-"+hex.EncodeToString(sum[:8]))
	f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false
	}
	if err == nil {
		_ = f.Close() // an empty marker: nothing to lose
	}
	// Any other failure prints the error here: twice is better than never.
	return true
}

// vetRun returns, when go vet runs this process (its last argument is
// $WORK/bNNN/vet.cfg), the go command's work directory and whether the
// process computes facts only; "" otherwise.
func vetRun(args []string) (work string, vetxOnly bool) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return "", false
	}
	cfg := args[len(args)-1]
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", false
	}
	var c struct{ VetxOnly bool }
	if json.Unmarshal(data, &c) != nil {
		return "", false
	}
	work = filepath.Dir(filepath.Dir(cfg))
	if !strings.HasPrefix(filepath.Base(work), "go-build") {
		work = ""
	}
	return work, c.VetxOnly
}

// Unlocked is a name of a declared order that no analysed code locks.
type Unlocked struct {
	Name string
	// Closest is the most similar name the code does lock, or "".
	Closest string
}

// UnlockedNames returns the names of the order that none of the lock
// classes locked names: a misspelt table in the order checks nothing.
func (o *DeclaredOrder) UnlockedNames(locked []string) []Unlocked {
	have := map[string]bool{}
	for _, n := range locked {
		have[n] = true
	}
	names := slices.Sorted(maps.Keys(have))
	var out []Unlocked
	for _, n := range o.Order {
		if !have[n] {
			out = append(out, Unlocked{Name: n, Closest: nearest(n, names, math.MaxInt)})
		}
	}
	return out
}

// orderNames returns the names a declared order gives the classes (see
// OrderName), sorted, without repeats.
func orderNames(classes map[lockgraph.Class]bool) []string {
	names := map[string]bool{}
	for c := range classes {
		if n := OrderName(c); n != "" {
			names[n] = true
		}
	}
	return sortedSet(names)
}

// closest returns the candidate nearest to name by edit distance, if it is
// near enough to be a misspelling (at most a third of the name's length
// changed), or "".
func closest(name string, candidates []string) string {
	return nearest(name, candidates, len(name)/3+1)
}

// nearest returns the candidate nearest to name by edit distance, closer
// than limit, or "".
func nearest(name string, candidates []string, limit int) string {
	best, bestD := "", limit
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
