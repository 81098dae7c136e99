// Package analyzer defines pglockorder's analysis pass, which reports
// PostgreSQL lock-order inversions that can deadlock.
//
// # Analyzer pglockorder
//
// pglockorder: report PostgreSQL lock-order inversions that can deadlock
//
// The pass finds the SQL that Go code runs (database/sql, pgx v4 and v5,
// pgxpool, any interface whose Exec/Query/QueryRow take the query as a
// string, such as sqlc's DBTX, and the ORMs and query builders sqlx, GORM,
// bun, squirrel, ent and xorm, whose chains become the statements they
// send), derives the locks each statement takes with
// PostgreSQL's own parser (row locks of SELECT ... FOR UPDATE/NO KEY
// UPDATE/SHARE/KEY SHARE, UPDATE, DELETE, INSERT ... ON CONFLICT DO UPDATE
// and MERGE; LOCK TABLE and the implicit table locks of every statement;
// advisory locks), follows the order in which each function takes them
// through the control-flow graph with transaction and connection scope, and
// across calls and packages. A lock-order edge "A is held while B is
// requested" is recorded for every path; a cycle of edges whose consecutive
// locks really conflict is a possible deadlock.
//
// Reported:
//
//   - lock-order: two (or more) paths take the same locks in opposite
//     orders inside transactions. PostgreSQL detects the deadlock after
//     deadlock_timeout and aborts one transaction with 40P01.
//   - session-advisory-cycle: such a cycle through a session-level
//     advisory lock (pg_advisory_lock). The lock survives the 40P01 and the
//     ROLLBACK, so the other side stays blocked until the application
//     unlocks or disconnects. Use pg_advisory_xact_lock.
//   - cross-connection: a path holds a lock on one connection (an open
//     transaction, a session advisory lock) and waits on another connection
//     of the same program. The server cannot see that wait: the cycle hangs
//     forever instead of failing. lock_timeout bounds it.
//   - session-advisory-on-pool: pg_advisory_lock run on a pool (*sql.DB,
//     *pgxpool.Pool): the unlock may run on another connection.
//   - session-advisory-leak: a session advisory lock may still be held where
//     its dedicated connection goes back to the pool (pgxpool.Conn.Release,
//     sql.Conn.Close): the session, and the lock, go on.
//
// The row-order rules look at the rows of one table, which table-level
// order cannot see (each category can be turned off with -disable):
//
//   - unordered-row-lock: one blocking statement locks several rows (= ANY,
//     IN, a range, a join, no WHERE) with no ORDER BY; in a transaction,
//     also an UPDATE/DELETE chosen by a set of keys or a range, and an
//     upsert of several rows. Fix: ORDER BY id FOR UPDATE first.
//   - row-order-mismatch: two blocking locking statements order the rows
//     of one table differently (ORDER BY hash against ORDER BY hash DESC).
//   - loop-lock-order: a transaction locks a row per iteration of a loop
//     over a map, or over a slice nobody sorted.
//   - caller-row-order: a transaction locks two rows of one table keyed by
//     two values its caller passes (from, to), in the caller's order.
//
// Two categories are about the check's own configuration:
//
//   - declared-lock-order: a lock is taken against the order declared in
//     .pglockorder.yaml (a table or advisory key requested while holding
//     one the order puts after it).
//   - ignore-directive: a //pglockorder:ignore directive without a reason,
//     or one that suppresses nothing.
//
// Every category is documented at
// https://github.com/pglockorder/pglockorder#category-<id>, the URL of its
// diagnostics.
//
// Not reported, because PostgreSQL does not deadlock on them: FOR SHARE
// against FOR SHARE, FOR KEY SHARE against FOR NO KEY UPDATE or a plain
// UPDATE, shared advisory locks against each other, requests with NOWAIT,
// SKIP LOCKED or pg_try_advisory_*, and statements in autocommit mode, which
// hold nothing once they return.
//
// The configuration is the analyzer's flags and the .pglockorder.yaml at
// the root of each package's module (or the file the config flag names):
// the declared order, the dialects of packages that talk to other
// databases, and the schema. Each package is analysed with its own module's
// file, also when one process analyses several modules. go vet and
// golangci-lint cache their results by the packages' sources only: after
// editing the file or the schema's migrations, run go vet -a or clean
// golangci-lint's cache (the pglockorder command's own cache hashes both).
//
// Run per package (go vet, golangci-lint), a cycle is reported in a package
// that contains one of its paths and sees the others through its imports.
// The pglockorder command analyses a whole program at once and also finds
// cycles between packages that do not import each other.
//
// # Analyzer pglockorderfacts
//
// pglockorderfacts: compute the lock sequences that pglockorder reports on
//
// The facts pass does the analysis and reports nothing: per package, the
// summary of every function that takes locks (an object fact, for the
// packages that call it), the lock-order edges of its functions, its
// ordered multi-row locks, its row-order findings and advisory-lock leaks,
// and its //pglockorder:ignore directives, as its result. The pglockorder
// pass requires it and reports, per package, what the package and its
// imports show; the pglockorder command runs it over a whole program and
// reports with the same rules (package internal/findings), so a finding, a
// suppression or a disabled category is the same in every driver. Its
// settings are pglockorder's flags.
package analyzer
