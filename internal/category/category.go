// Package category is the one catalogue of pglockorder's finding
// categories. Everything that lists them is made from it: the analyzer's
// -disable flag and its check, Diagnostic.URL, the SARIF rules (name, help
// and a helpUri per category) and the README's table of what each report
// means, which a test keeps in step with it.
package category

import "strings"

// DocsURL is the page that documents every category; each has an anchor
// there (see Category.URL).
const DocsURL = "https://github.com/pglockorder/pglockorder"

// The category IDs, as diagnostics, -disable, baselines and SARIF rule IDs
// name them.
const (
	LockOrder          = "lock-order"
	SessionCycle       = "session-advisory-cycle"
	CrossConnection    = "cross-connection"
	SessionOnPool      = "session-advisory-on-pool"
	SessionLeak        = "session-advisory-leak"
	UnorderedRowLock   = "unordered-row-lock"
	RowOrderMismatch   = "row-order-mismatch"
	LoopLockOrder      = "loop-lock-order"
	CallerRowOrder     = "caller-row-order"
	DeclaredLockOrder  = "declared-lock-order"
	IgnoreDirective    = "ignore-directive"
	severityError      = "error"
	severityWarning    = "warning"
	anchorPrefix       = "category-"
	docsAnchorSelector = "#" + anchorPrefix
)

// Category describes one kind of finding.
type Category struct {
	// ID names the category ("lock-order").
	ID string
	// Name is its rule name for SARIF consumers ("LockOrderInversion").
	Name string
	// Title is a one-line description.
	Title string
	// Help says what happens at run time and what to do, in Markdown
	// (backquotes for code): the README's table and SARIF's help text.
	Help string
	// Severity is "error" for a deadlock or hang, "warning" for a finding
	// about the configuration of the check itself.
	Severity string
}

// URL is the documentation of the category: its anchor in the README.
func (c Category) URL() string { return DocsURL + docsAnchorSelector + c.ID }

// Anchor is the HTML anchor id of the category in the README.
func (c Category) Anchor() string { return anchorPrefix + c.ID }

// All lists every category, deadlocks first, then the rules about the
// check's own configuration.
var All = []Category{
	{LockOrder, "LockOrderInversion", "Code paths take the same PostgreSQL locks in opposite orders",
		"Two (or more) paths take the same locks in opposite orders inside transactions. PostgreSQL detects the " +
			"cycle after `deadlock_timeout` (1 s by default) and aborts one transaction with `40P01 deadlock detected` " +
			"(`55P03` if `lock_timeout` is shorter). Also a lock upgrade (\"lock-upgrade deadlock\"): one transaction " +
			"takes a lock that does not conflict with itself (FOR SHARE, LOCK TABLE ... IN SHARE MODE) and then a " +
			"stronger one on the same table: two concurrent runs deadlock. Take the locks in one order on every path " +
			"(the message names the path that breaks the order), or serialise the paths with a common lock taken first.",
		severityError},
	{SessionCycle, "SessionAdvisoryCycle", "A lock-order cycle through, or under, a session-level advisory lock",
		"A lock-order cycle passes through a session-level `pg_advisory_lock`, or one of its paths runs while its function " +
			"holds one taken on a connection pool (\"lock-order inversion that hangs\"). PostgreSQL detects the cycle, but " +
			"the session lock survives the error and the `ROLLBACK`: the other path, or the next run for the same key, " +
			"stays blocked until the application unlocks or disconnects. Use `pg_advisory_xact_lock` (or a dedicated " +
			"connection that unlocks on every path), and take the locks in one order.",
		severityError},
	{CrossConnection, "CrossConnectionDeadlock", "A path holds a lock on one connection while waiting on another",
		"A path holds a lock on one connection (an open transaction, a session advisory lock) and waits on another " +
			"connection of the same program: the server cannot see that wait, so the cycle hangs forever instead of " +
			"failing. The one-path form (\"application self-deadlock\") is a transaction followed by a statement on " +
			"the pool that touches what the transaction locked. Use the same transaction or commit first; " +
			"`lock_timeout` turns the hang into an error.",
		severityError},
	{SessionOnPool, "SessionAdvisoryOnPool", "pg_advisory_lock run on a connection pool",
		"`pg_advisory_lock` runs on a pool (`*sql.DB`, `*pgxpool.Pool`): the unlock may run on another pooled " +
			"connection and the lock leaks. Take it on a dedicated connection (`pool.Acquire`, `db.Conn`), or use " +
			"`pg_advisory_xact_lock` in a transaction.",
		severityError},
	{SessionLeak, "SessionAdvisoryLeak", "A session advisory lock may outlive its connection's use",
		"A session advisory lock may still be held where its dedicated connection goes back to the pool " +
			"(`pgxpool.Conn.Release`, `sql.Conn.Close`; an early return skipped the unlock): returning a connection " +
			"does not end its session, so the lock stays with the next user of that connection. Unlock on every path " +
			"before releasing the connection.",
		severityError},
	{UnorderedRowLock, "UnorderedMultiRowLock", "One statement locks several rows in no defined order",
		"One statement locks several rows of a table (`= ANY`, `IN`, a range, a join; in a transaction also an " +
			"`UPDATE`/`DELETE` by a set of keys or an upsert of several rows) in no defined order; two executions with " +
			"overlapping rows deadlock (40P01). Lock the rows in one order: `SELECT ... ORDER BY id FOR UPDATE` first, " +
			"or a CTE that does so before the `UPDATE`.",
		severityError},
	{RowOrderMismatch, "RowOrderMismatch", "Two statements lock the rows of one table in different orders",
		"Two statements lock the rows of one table in different `ORDER BY`s (`ORDER BY hash` against " +
			"`ORDER BY hash DESC`, or other keys); transactions that lock overlapping rows in the two orders deadlock " +
			"(40P01). Use one `ORDER BY` everywhere, ending in a unique key.",
		severityError},
	{LoopLockOrder, "LoopLockOrder", "A transaction locks rows in the order of a map or an unsorted slice",
		"A transaction locks one row (or advisory key) per iteration of a loop over a map or a slice nobody sorted " +
			"(40P01). Sort the keys before the loop, or lock all rows in one ordered statement.",
		severityError},
	{CallerRowOrder, "CallerChosenRowOrder", "Two rows of one table are locked in the order the caller passes them",
		"A transaction locks two rows of one table (or two advisory keys of one shape) in the order its caller " +
			"passes their keys (from, to), or one keyed by a value read from the database and one by the caller's: " +
			"two concurrent calls with the values swapped deadlock (40P01). Lock the " +
			"lower key first (min/max), or both rows in one statement with `ORDER BY`.",
		severityError},
	{DeclaredLockOrder, "DeclaredLockOrder", "A lock is taken against the declared lock order",
		"The configuration file (`.pglockorder.yaml`) declares the order in which tables and advisory keys are " +
			"locked, and this acquisition requests a lock that comes earlier in that order while holding one that " +
			"comes later. Change the code to follow the order, or change the declared order for every path.",
		severityError},
	{IgnoreDirective, "IgnoreDirective", "A //pglockorder:ignore directive is malformed or matches nothing",
		"A `//pglockorder:ignore` directive must give a reason and sit on the line of a finding or the line above " +
			"it. One that suppresses nothing is stale: remove it.",
		severityWarning},
}

// Lookup returns the category with the given ID.
func Lookup(id string) (Category, bool) {
	for _, c := range All {
		if c.ID == id {
			return c, true
		}
	}
	return Category{}, false
}

// IDs returns the IDs of every category, in catalogue order.
func IDs() []string {
	out := make([]string, len(All))
	for i, c := range All {
		out[i] = c.ID
	}
	return out
}

// MarkdownTable renders the catalogue as the README's table: one row per
// category, each with the anchor its URL points at.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| category | what happens at run time |\n| --- | --- |\n")
	for _, c := range All {
		b.WriteString(`| <a id="` + c.Anchor() + `"></a>` + "`" + c.ID + "`" + " | " + c.Help + " |\n")
	}
	return b.String()
}
