package lockmodel

import (
	"fmt"
	"strconv"
	"strings"
)

// modeNames holds PostgreSQL's spelling of each Mode, as it appears in SQL
// (FOR UPDATE, LOCK TABLE ... IN SHARE MODE) and in the documentation.
var modeNames = map[Mode]string{
	ForKeyShare:          "FOR KEY SHARE",
	ForShare:             "FOR SHARE",
	ForNoKeyUpdate:       "FOR NO KEY UPDATE",
	ForUpdate:            "FOR UPDATE",
	AccessShare:          "ACCESS SHARE",
	RowShare:             "ROW SHARE",
	RowExclusive:         "ROW EXCLUSIVE",
	ShareUpdateExclusive: "SHARE UPDATE EXCLUSIVE",
	Share:                "SHARE",
	ShareRowExclusive:    "SHARE ROW EXCLUSIVE",
	Exclusive:            "EXCLUSIVE",
	AccessExclusive:      "ACCESS EXCLUSIVE",
	AdvisoryShared:       "shared",
	AdvisoryExclusive:    "exclusive",
}

// String returns PostgreSQL's name of the mode ("FOR NO KEY UPDATE",
// "SHARE ROW EXCLUSIVE", "shared").
func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// String returns "row", "table" or "advisory".
func (k Kind) String() string {
	switch k {
	case Row:
		return "row"
	case Table:
		return "table"
	case Advisory:
		return "advisory"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// String returns "block", "nowait", "skip locked" or "try".
func (w WaitPolicy) String() string {
	switch w {
	case Block:
		return "block"
	case NoWait:
		return "nowait"
	case SkipLocked:
		return "skip locked"
	case Try:
		return "try"
	}
	return "WaitPolicy(" + strconv.Itoa(int(w)) + ")"
}

// String returns "transaction" or "session".
func (s Scope) String() string {
	switch s {
	case Xact:
		return "transaction"
	case Session:
		return "session"
	}
	return "Scope(" + strconv.Itoa(int(s)) + ")"
}

// String returns the constant text, "$n" for a parameter, or "?" when the
// value is unknown.
func (p KeyPart) String() string {
	switch {
	case p.Const != "":
		return p.Const
	case p.Param > 0:
		return "$" + strconv.Itoa(p.Param)
	case p.Template != "":
		return p.Template
	}
	return "?"
}

// String renders the key as an argument list: "(42)", "(1, 2)", "($1)",
// "(?)" for an unknown argument.
func (k AdvisoryKey) String() string {
	parts := make([]string, len(k.Parts))
	for i, p := range k.Parts {
		parts[i] = p.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// String describes the lock for messages: "FOR UPDATE rows of
// subscriptions", "SHARE ROW EXCLUSIVE lock on table ta", "session advisory
// lock (42)", "shared transaction advisory lock ($1)". A wait policy other
// than Block is added at the end (" NOWAIT", " SKIP LOCKED", " (try)").
func (l Lock) String() string {
	var s string
	switch l.Kind {
	case Row:
		s = l.Mode.String() + " rows of " + l.Table
	case Table:
		s = l.Mode.String() + " lock on table " + l.Table
	case Advisory:
		if l.Mode == AdvisoryShared {
			s = "shared "
		}
		s += l.Scope.String() + " advisory lock " + l.Key.String()
	case 0:
		return "no lock"
	default:
		return fmt.Sprintf("Lock{Kind: %v, Mode: %v}", l.Kind, l.Mode)
	}
	switch l.Wait {
	case NoWait:
		s += " NOWAIT"
	case SkipLocked:
		s += " SKIP LOCKED"
	case Try:
		s += " (try)"
	}
	return s
}

// String returns a short lower-case name of the effect kind ("acquire",
// "unlock all", "rollback to savepoint").
func (e EffectKind) String() string {
	switch e {
	case Acquire:
		return "acquire"
	case Unlock:
		return "unlock"
	case UnlockAll:
		return "unlock all"
	case Begin:
		return "begin"
	case Commit:
		return "commit"
	case Rollback:
		return "rollback"
	case Savepoint:
		return "savepoint"
	case RollbackTo:
		return "rollback to savepoint"
	case ReleaseSavepoint:
		return "release savepoint"
	case CreateTemp:
		return "create temp table"
	}
	return "EffectKind(" + strconv.Itoa(int(e)) + ")"
}
