package explain

import (
	"slices"
	"strings"
)

// Entry is one message of a server log, or one error as a driver returns
// it, with the fields PostgreSQL attaches to it.
type Entry struct {
	// Line is the input line where the entry starts.
	Line int
	// Time is the entry's time stamp as logged; empty when unknown.
	Time string
	// PID is the process that logged the entry; 0 when unknown.
	PID int
	// Severity is PostgreSQL's severity (LOG, ERROR, ...).
	Severity string
	// Code is the SQLSTATE, when the format carries it.
	Code string
	// The message and its fields; Context is the CONTEXT (a driver's
	// Where), Statement the STATEMENT (csvlog's query).
	Message, Detail, Hint, Context, Statement string
	// Truncated is set when a field was cut at the field size limit or
	// the entry was cut short by the end of the input.
	Truncated bool
	// Source is the format the entry was read in: "stderr", "csvlog",
	// "jsonlog", "pgx" (a *pgconn.PgError), "pq" (a *pq.Error) or
	// "driver" (an error text of either, with its detail lines).
	Source string
	// prefix is the log_line_prefix of a stderr entry, whose time stamp
	// timeOf reads when the entry makes a report.
	prefix string
}

// timeOf returns the entry's time stamp.
func (e *Entry) timeOf() string {
	if e.Time == "" && e.prefix != "" {
		e.Time = prefixTime.FindString(e.prefix)
	}
	return e.Time
}

// field returns the entry's field named as in the stderr format
// (DETAIL, HINT, ...), for continuation lines; nil for an unknown name.
func (e *Entry) field(name string) *string {
	switch name {
	case "DETAIL":
		return &e.Detail
	case "HINT":
		return &e.Hint
	case "CONTEXT":
		return &e.Context
	case "STATEMENT":
		return &e.Statement
	}
	return nil
}

// set stores v in *dst, cut at the field size limit.
func (e *Entry) set(dst *string, v string) {
	var cut bool
	*dst, cut = clip(v)
	e.Truncated = e.Truncated || cut
}

// appendLine adds a continuation line to *dst.
func (e *Entry) appendLine(dst *string, line string) {
	if len(*dst)+1+len(line) > maxField {
		e.Truncated = true
		return
	}
	*dst += "\n" + line
}

// BlockRow is one row of a blocked/blocking query's output (psql aligned
// or CSV): a process that waits, the processes it waits for, and their
// statements.
type BlockRow struct {
	Line       int
	PID        int
	Statement  string
	BlockedBy  []int
	Blocking   string // the statement of the (first) blocking process
	Mode       string // the mode the blocked process waits for, when given
	LockType   string // pg_locks.locktype, when given
	Relation   string // the relation, when given
	Source     string // "psql" or "psql-csv"
	Incomplete bool   // the table ended before this row did
}

// severities are the message levels of a server log line.
var severities = []string{"LOG", "ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "DEBUG", "DEBUG1", "DEBUG2", "DEBUG3", "DEBUG4", "DEBUG5"}

// isSeverity reports whether s is a severity of a primary message.
func isSeverity(s string) bool { return slices.Contains(severities, strings.ToUpper(s)) }
