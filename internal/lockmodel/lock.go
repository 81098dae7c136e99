// Package lockmodel derives the PostgreSQL locks that a SQL string takes.
//
// It is the only package of pglockorder that parses SQL (with pg_query_go,
// PostgreSQL's own parser). Given the text of a query it reports, in
// execution order, every lock the statements request (row locks, table locks
// and advisory locks), every advisory unlock, and every transaction-control
// statement (BEGIN, COMMIT, ROLLBACK, SAVEPOINT ...). It also holds the
// PostgreSQL conflict matrices that decide whether two lock requests can block
// each other.
//
// The facts behind the model were checked on a real PostgreSQL 15 server; see
// the README's "Lock model" section.
package lockmodel

// Kind is the kind of lockable object.
type Kind uint8

// The kinds of lockable object.
const (
	// Row is a row-level lock on rows of one table.
	Row Kind = iota + 1
	// Table is a table-level (relation) lock.
	Table
	// Advisory is an advisory lock on an application-defined key.
	Advisory
)

// Mode is a lock mode. Row, table and advisory modes use disjoint values so
// that a Mode alone says which kind it belongs to.
type Mode uint8

// Row-level lock modes, weakest first.
const (
	ForKeyShare Mode = iota + 1
	ForShare
	ForNoKeyUpdate
	ForUpdate
)

// Table-level lock modes, weakest first (PostgreSQL's numbering 1..8).
const (
	AccessShare Mode = iota + 11
	RowShare
	RowExclusive
	ShareUpdateExclusive
	Share
	ShareRowExclusive
	Exclusive
	AccessExclusive
)

// Advisory lock modes.
const (
	AdvisoryShared Mode = iota + 21
	AdvisoryExclusive
)

// WaitPolicy says what a request does when the lock is not free.
type WaitPolicy uint8

// Wait policies.
const (
	// Block waits until the lock is granted.
	Block WaitPolicy = iota
	// NoWait fails at once with 55P03 (row locks only; NOWAIT still waits
	// for table locks).
	NoWait
	// SkipLocked skips locked rows (row locks only; it still waits for
	// table locks).
	SkipLocked
	// Try never waits: pg_try_advisory_* return false instead.
	Try
)

// Scope is how long a granted lock is held.
type Scope uint8

// Lock scopes.
const (
	// Xact locks are held until the end of the transaction (for an
	// autocommit statement: until the statement ends).
	Xact Scope = iota
	// Session locks (pg_advisory_lock and friends) are held until an
	// explicit unlock on the same connection or until it is closed; they
	// survive COMMIT, ROLLBACK and deadlock errors.
	Session
)

// KeyPart is one argument of an advisory lock key.
type KeyPart struct {
	// Const is the canonical text of a constant argument ("42", "-1",
	// "hashtext('billing')"); empty when the argument is not constant.
	Const string
	// Param is the 1-based number of a $n placeholder argument, 0 if the
	// argument is not a bare parameter (a cast such as $1::bigint still
	// counts as the parameter).
	Param int
	// Template is the canonical text of a function of constants and $n
	// placeholders, such as "hashtext($1)": binding the placeholders to
	// constants at the call site gives the text Const would have had
	// ("hashtext('reports')"). Empty otherwise.
	Template string
}

// Known reports whether the key part is a constant in the SQL text.
func (p KeyPart) Known() bool { return p.Const != "" }

// AdvisoryKey identifies an advisory lock. PostgreSQL keeps the one-argument
// (bigint) and two-argument (int4, int4) forms in separate key spaces.
type AdvisoryKey struct {
	// Parts holds one element for the bigint form and two for the
	// (int4, int4) form. A part that is neither a constant nor a bare
	// parameter has Const == "" and Param == 0: its value is unknown.
	Parts []KeyPart
}

// Lock is one lock request.
type Lock struct {
	Kind Kind
	// Table is the locked relation for Row and Table locks: lower-cased
	// unless quoted in the SQL, with a "public." prefix removed
	// ("subscriptions", "billing.invoices").
	Table string
	// Key identifies the advisory lock; zero for other kinds.
	Key  AdvisoryKey
	Mode Mode
	Wait WaitPolicy
	// Scope is Session only for session-level advisory locks.
	Scope Scope
	// Implicit marks the table lock that an ordinary statement takes as a
	// side effect (ACCESS SHARE for reads, ROW SHARE for FOR UPDATE/SHARE,
	// ROW EXCLUSIVE for writes), as opposed to LOCK TABLE.
	Implicit bool
}

// Waits reports whether the request can wait for a conflicting holder.
// NOWAIT and SKIP LOCKED never wait for row locks and pg_try_* never waits.
// The implicit table lock of a NOWAIT or SKIP LOCKED statement has Wait ==
// Block: PostgreSQL still waits for table locks then.
func (l Lock) Waits() bool { return l.Wait == Block }

// EffectKind is the kind of one effect of executing SQL.
type EffectKind uint8

// The effects a SQL string can have.
const (
	// Acquire requests Lock.
	Acquire EffectKind = iota + 1
	// Unlock releases one hold of the session advisory lock Lock
	// (pg_advisory_unlock / pg_advisory_unlock_shared).
	Unlock
	// UnlockAll releases every session advisory lock of the connection.
	UnlockAll
	// Begin starts a transaction block (BEGIN, START TRANSACTION).
	Begin
	// Commit ends the transaction block, releasing its locks (COMMIT, END).
	Commit
	// Rollback ends the transaction block, releasing its locks.
	Rollback
	// Savepoint defines a savepoint (SAVEPOINT name); Name is set.
	Savepoint
	// RollbackTo releases locks taken since the named savepoint.
	RollbackTo
	// ReleaseSavepoint forgets a savepoint; locks stay held.
	ReleaseSavepoint
	// CreateTemp creates the temporary table Name (CREATE TEMP TABLE,
	// CREATE TEMP TABLE ... AS). A temporary table is private to its
	// session: locks on it never make another session wait.
	CreateTemp
)

// Effect is one thing that executing SQL does, in execution order.
type Effect struct {
	Kind EffectKind
	// Lock is set for Acquire and Unlock.
	Lock Lock
	// Name is the savepoint name for savepoint effects.
	Name string
	// Stmt is the 0-based index of the statement in the string.
	Stmt int
	// Verb describes the statement (or, for a lock taken by a sub-query,
	// the sub-query) for messages, for example "SELECT", "SELECT ... FOR
	// UPDATE", "SELECT ... FOR UPDATE SKIP LOCKED", "UPDATE", "DELETE",
	// "INSERT", "INSERT ... ON CONFLICT DO UPDATE", "MERGE", "LOCK TABLE
	// ... IN SHARE MODE", "TRUNCATE", "CREATE INDEX", "pg_advisory_lock",
	// "BEGIN", "COMMIT AND CHAIN", "ROLLBACK TO SAVEPOINT".
	Verb string
	// Rows describes the rows a row lock takes, and those whose keys a
	// per-row advisory lock takes; zero for other effects.
	Rows RowSet
	// Try says, for a pg_try_advisory_* call, where its boolean result
	// goes: the lock is held only where that result was true, and the
	// caller learns it from there. Column is the 0-based result column
	// for TryColumn.
	Try    TryUse
	Column int
}

// TryUse is where the result of a pg_try_advisory_* call goes.
type TryUse uint8

// Uses of a try-lock's result.
const (
	// TryUnseen: the result is used in a way the model does not follow
	// (an expression, a sub-query, a DML statement): whether the lock
	// was granted is not visible to the caller.
	TryUnseen TryUse = iota
	// TryColumn: the call is a result column of the statement's
	// top-level SELECT (possibly cast or aliased); the column is true
	// exactly where the lock was granted.
	TryColumn
	// TryFilter: the call is a conjunct of the top-level SELECT's WHERE:
	// a row comes back only where the lock was granted.
	TryFilter
)

// Analysis is what a SQL string does to locks.
type Analysis struct {
	// Effects lists the effects in execution order: statement by
	// statement, and within a statement first its table locks (which
	// PostgreSQL takes before it touches a row), then its row locks and
	// advisory calls, those of CTEs and sub-queries before the rows of the
	// query that contains them.
	Effects []Effect
	// Statements is the number of statements in the string. More than one
	// statement run as one implicit transaction (simple query protocol):
	// their locks are held until the string ends.
	Statements int
	// Err is the parse error, if the string is not valid SQL; Effects is
	// then empty.
	Err error
}
