// Package explain connects a PostgreSQL deadlock, as a server log or a
// driver's error reports it, back to the Go code that can produce it.
//
// It reads server logs (the stderr format with any log_line_prefix,
// csvlog, jsonlog), the error text drivers return (pgx's *pgconn.PgError,
// lib/pq's *pq.Error) and psql's output of a blocked/blocking query over
// pg_locks, pg_stat_activity or pg_blocking_pids(), streaming and in
// bounded memory. From them it assembles Reports: the processes of each
// deadlock with the lock each waits for and the statement it runs, and
// the waits that ended only with lock_timeout or never ended (hangs the
// server cannot see). Explain then matches each statement to the SQL call
// sites of the analysed program by pg_query fingerprint (literals and $n
// parameters compare equal), then by the kind and tables of the
// statement, and looks for the code paths and the pglockorder finding
// that produce that wait-for cycle.
//
// The package depends on the analyzer's results only (sites, edges,
// findings), never on the command.
package explain
