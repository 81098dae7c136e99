package lockseq

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// Limits that keep summaries and paths small on large programs.
const (
	maxEvents    = 1024 // events kept in one summary (limits.go)
	maxPathDepth = 8    // frames kept in one path
)

// Env is what the analysis needs from its driver.
type Env struct {
	Fset *token.FileSet
	// ImportSummary returns the summary of a function of another package,
	// or nil.
	ImportSummary func(*types.Func) *Summary
	// SkipSQL, if set, says why a SQL text is not to be analysed as
	// PostgreSQL (another database's dialect), or "".
	SkipSQL func(sql string) string
	// Methods, if set, lists the methods named name of other packages
	// that have a summary (they take locks), wherever they are declared:
	// calls through an interface apply those of them that implement it
	// (dispatch.go). A driver lists what its facts hold: the whole
	// program in the pglockorder command, the package's dependencies in
	// go vet.
	Methods func(name string) []*types.Func
	// Strings, if set, returns the constant elements a []string variable
	// of another package is initialised with (a column list).
	Strings func(v *types.Var) ([]string, bool)
	// TableName, if set, returns the table name an ORM model's TableName
	// method, or a go-jet table variable, of another package names (its
	// fact).
	TableName func(obj types.Object) (string, bool)
	// Schema is the database schema the package's SQL runs against, from
	// its module's configuration or the schema flag (nil: none known):
	// the lock model adds the locks it implies (foreign keys, key
	// columns, functions and triggers). It is the Env's, not the lock
	// model's, so that packages of differently configured modules can be
	// analysed in one process. A function, called when SQL is first
	// modelled, so that a package that sends none does not load it (nil:
	// none).
	Schema func() *lockmodel.Schema
	// Rules are the user-declared sinks and transaction runners (nil:
	// none), which decide, with the models of the database APIs, which
	// values are handles and which calls run SQL.
	Rules *sqlsite.Rules
}

// Leak is a session advisory lock taken on a pool: the unlock may run on
// another pooled connection, and the lock then stays with a connection
// nobody owns.
type Leak struct {
	Pos  token.Pos
	Lock lockgraph.Lock
	Path []lockgraph.Frame
	// Returned is set when the lock may still be held as its connection
	// goes back to the pool (Pos is the release, or the call of the
	// function that makes it); otherwise the lock was taken on a pool in
	// the first place (Pos is the statement).
	Returned bool
	// Release is the path from Pos to the release a called function
	// makes (nil: Pos is the release), and At, when valid, the release's
	// own position where it is in the function's body (a deferred
	// closure's conn.Close()): the report is made there.
	Release []lockgraph.Frame
	At      token.Position
}

// Analysis computes summaries and edges for the functions of one package.
type Analysis struct {
	env Env
	// calls memoises callSites over the package's functions, which both
	// GateByCallers and WithdrawLent read.
	calls      *packageCalls
	sums       map[*ssa.Function]*Summary
	inProgress map[*ssa.Function]bool
	// Edges are the lock-order edges found in the package's functions.
	Edges []*lockgraph.Edge
	// EdgePos maps each edge to the position of its second request in the
	// function where it was found: the anchor of a report.
	EdgePos map[*lockgraph.Edge]token.Pos
	// Leaks are the session advisory locks taken on pools.
	Leaks []Leak
	// TempTables are the temporary tables the package's SQL creates. Each
	// session has its own: their locks never make another session wait.
	TempTables map[string]bool
	// Rows are the findings of the row-order rules.
	Rows []RowFinding
	// Lent holds the verdicts of this package's calls on the lent row
	// findings (RowFinding.Lent) of the functions they call, in this
	// package or another, by LentKey: true where every call judged the
	// finding with the locks its own transaction holds (reported there
	// if at all, or harmless there), false where one call leaves the
	// callee's own report standing. WithdrawLent applies them.
	Lent map[string]bool
	// Ordered lists the package's blocking locks of several rows in a
	// defined order, for the order-mismatch rule.
	Ordered []OrderedLock
	// Sites are the package's calls that send SQL (sites.go), for
	// -explain.
	Sites []Site

	// Skipped lists the SQL that was not analysed (skip.go).
	Skipped []Skip
	// Locked holds the class of every lock the package's SQL requests,
	// for a driver to check the names of a declared order against.
	Locked map[lockgraph.Class]bool
	// Limits are the bounds functions reached (limits.go), for warnings.
	Limits []Limit

	rowSeen  map[string]bool
	siteSeen map[Site]bool

	skipSeen map[string]bool
	// Dispatch counts the calls through interfaces and how they were
	// resolved (dispatch.go).
	Dispatch DispatchStats
	// ext is what the SQL resolver knows of other packages (externals).
	ext *sqlsite.Externals
	// impls caches the implementations of interface methods (dispatch.go).
	impls map[string]implEntry
	// ifacePaths caches the handle paths of interface types (dispatch.go).
	ifacePaths map[string][][]string
	// entries are the locks surely held at each call of a function, and
	// edgeFn the function each edge was drawn in (entry.go).
	entries map[entryKey][]entryGate
	edgeFn  map[*lockgraph.Edge]*ssa.Function
	// heldRows are, for each call of a function, the callee's row locks
	// (by the callee's event index) whose row the caller surely holds
	// already at the call, in a mode that covers them (entry.go).
	heldRows map[entryKey]map[int]bool
	// instances are the closures returned by factory calls that were
	// analysed as roots of their own (factory.go).
	instances map[instanceKey]bool
	// fieldFns indexes the function values the package stores into
	// struct fields (fieldfuncs.go).
	fieldFns *fieldFuncs
}

// New returns an analysis for one package.
func New(env Env) *Analysis {
	a := &Analysis{
		env:        env,
		sums:       map[*ssa.Function]*Summary{},
		inProgress: map[*ssa.Function]bool{},
		EdgePos:    map[*lockgraph.Edge]token.Pos{},
		edgeFn:     map[*lockgraph.Edge]*ssa.Function{},
		TempTables: map[string]bool{},
		skipSeen:   map[string]bool{},
		Locked:     map[lockgraph.Class]bool{},
		rowSeen:    map[string]bool{},
		Lent:       map[string]bool{},
	}
	// The ORM models' table names declared in other packages come from
	// their facts, through the rules the package's calls are classified
	// with.
	a.env.Rules = env.Rules.WithExternals(a.externals())
	return a
}

// Summary analyses fn (if not done yet) and returns its summary.
func (a *Analysis) Summary(fn *ssa.Function) *Summary {
	if s, ok := a.sums[fn]; ok {
		return s
	}
	if a.inProgress[fn] {
		// Recursion: the cycle is cut here; the callee's own locks are
		// still seen where it is analysed.
		return nil
	}
	a.inProgress[fn] = true
	s := newFnAnalysis(a, fn).run()
	delete(a.inProgress, fn)
	a.sums[fn] = s
	return s
}

// externals is what the SQL text resolver may know of other packages:
// the texts their functions return (their summaries) and their []string
// variables.
func (a *Analysis) externals() *sqlsite.Externals {
	if a.ext == nil {
		a.ext = &sqlsite.Externals{
			Text: func(fn *types.Func) []sqlsite.Template {
				if a.env.ImportSummary == nil {
					return nil
				}
				if s := a.env.ImportSummary(fn); s != nil {
					return s.Text
				}
				return nil
			},
			Strings:   a.env.Strings,
			TableName: a.env.TableName,
		}
	}
	return a.ext
}

// summaryOf returns the summary of a callee: analysed here when its body is
// in this package, imported as a fact otherwise. A wrapper the compiler
// makes (a method value's bound closure h.book, a promoted method) is
// analysed where it is used: its body calls the method, whose summary it
// takes on.
func (a *Analysis) summaryOf(fn *ssa.Function) *Summary {
	if fn.Origin() != nil && len(fn.Blocks) == 0 {
		// An instance of a generic function whose body this program
		// does not have (declared in another package): the generic
		// function's summary, a fact of its package. An instance built
		// here is analysed on its own: its type arguments may name the
		// statement (a model's TableName through a type parameter).
		fn = fn.Origin()
	}
	if len(fn.Blocks) > 0 && (fn.Pkg != nil || fn.Synthetic != "") {
		return a.Summary(fn)
	}
	if obj, ok := fn.Object().(*types.Func); ok && a.env.ImportSummary != nil {
		return a.env.ImportSummary(obj)
	}
	return nil
}

// schema returns the schema the package's SQL runs against (Env.Schema;
// nil: none).
func (a *Analysis) schema() *lockmodel.Schema {
	if a.env.Schema == nil {
		return nil
	}
	return a.env.Schema()
}

// skipSQL reports whether text is not PostgreSQL and must not be analysed
// (Env.SkipSQL), recording the skip with its reason.
func (a *Analysis) skipSQL(pos, text string) bool {
	if a.env.SkipSQL == nil {
		return false
	}
	why := a.env.SkipSQL(text)
	if why == "" {
		return false
	}
	a.skip(Skip{Reason: SkipDialect, Posn: pos, Detail: why})
	return true
}
