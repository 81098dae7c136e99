package explain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// Lock is a lock as PostgreSQL's messages describe it ("ShareLock on
// transaction 739", "ExclusiveLock on tuple (0,1) of relation 16384 of
// database 5", "ExclusiveLock on advisory lock [16426,0,100,1]"), decoded
// into the lock model where the model has such a lock.
type Lock struct {
	// Text is the description as logged.
	Text string `json:"text"`
	// PGMode is PostgreSQL's internal mode name ("ShareLock").
	PGMode string `json:"pgMode,omitempty"`
	// Object is what is locked: "transaction", "tuple", "relation",
	// "advisory lock", "virtual transaction", "extension of relation",
	// "page", "object", "speculative token", ...
	Object string `json:"object,omitempty"`
	// Relation is the relation's name when a message names it (the
	// CONTEXT of a tuple wait), else "oid N" when only its number is
	// known; empty for other objects.
	Relation string `json:"relation,omitempty"`
	// Kind and Mode are the lock in the model: a row lock (a wait for a
	// transaction is a wait for the row locks it holds), a table lock or
	// an advisory lock. Kind is 0 for objects the model has no lock for.
	Kind lockmodel.Kind `json:"-"`
	Mode lockmodel.Mode `json:"-"`
	// Key is an advisory lock's key as the application passed it:
	// "(42)" for the bigint form, "(1, 2)" for two int4 keys.
	Key string `json:"key,omitempty"`
}

// lockText matches "<Mode>Lock on <object>".
var (
	lockText     = regexp.MustCompile(`^(\w+Lock) on (.+)$`)
	relationOID  = regexp.MustCompile(`relation (\d+) of database (\d+)`)
	advisoryText = regexp.MustCompile(`^advisory lock \[(\d+),(\d+),(\d+),(\d+)\]`)
	// contextRelation finds the relation of a tuple wait in a CONTEXT:
	// while updating tuple (0,1) in relation "accounts".
	contextRelation = regexp.MustCompile(`(?:while (\w+(?: \w+)*) (?:index )?tuple \(\d+,\d+\) in relation "((?:[^"]|"")+)")`)
)

// tableModes maps PostgreSQL's internal names of the table lock modes to
// the model's.
var tableModes = map[string]lockmodel.Mode{
	"AccessShareLock":          lockmodel.AccessShare,
	"RowShareLock":             lockmodel.RowShare,
	"RowExclusiveLock":         lockmodel.RowExclusive,
	"ShareUpdateExclusiveLock": lockmodel.ShareUpdateExclusive,
	"ShareLock":                lockmodel.Share,
	"ShareRowExclusiveLock":    lockmodel.ShareRowExclusive,
	"ExclusiveLock":            lockmodel.Exclusive,
	"AccessExclusiveLock":      lockmodel.AccessExclusive,
}

// tupleModes maps the heavyweight lock PostgreSQL takes on a tuple while
// it waits for a row lock to the row lock mode (heapam.c's
// tupleLockExtraInfo).
var tupleModes = map[string]lockmodel.Mode{
	"AccessShareLock":     lockmodel.ForKeyShare,
	"RowShareLock":        lockmodel.ForShare,
	"ExclusiveLock":       lockmodel.ForNoKeyUpdate,
	"AccessExclusiveLock": lockmodel.ForUpdate,
}

// ParseLock decodes a lock description; context is the CONTEXT of the
// message, which names the relation of a tuple wait.
func ParseLock(text, context string) Lock {
	l := Lock{Text: text}
	m := lockText.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return l
	}
	l.PGMode = m[1]
	obj := m[2]
	if oid := relationOID.FindStringSubmatch(obj); oid != nil {
		l.Relation = "oid " + oid[1]
	}
	if c := contextRelation.FindStringSubmatch(context); c != nil {
		l.Relation = strings.ReplaceAll(c[2], `""`, `"`)
	}
	switch {
	case strings.HasPrefix(obj, "transaction "):
		// A row lock's holder: the waiter waits for the transaction
		// that locked (or updated) the row to end.
		l.Object, l.Kind = "transaction", lockmodel.Row
	case strings.HasPrefix(obj, "tuple "):
		l.Object, l.Kind, l.Mode = "tuple", lockmodel.Row, tupleModes[l.PGMode]
	case strings.HasPrefix(obj, "relation "):
		l.Object, l.Kind, l.Mode = "relation", lockmodel.Table, tableModes[l.PGMode]
	case strings.HasPrefix(obj, "advisory lock "):
		l.Object, l.Kind = "advisory lock", lockmodel.Advisory
		l.Mode = lockmodel.AdvisoryExclusive
		if l.PGMode == "ShareLock" {
			l.Mode = lockmodel.AdvisoryShared
		}
		l.Key = advisoryKey(obj)
	default:
		// virtual transaction, extension of relation, page, object,
		// speculative token, ...: the model has no such lock.
		l.Object = objectName(obj)
	}
	return l
}

// objectName is the kind of object of a description the model does not
// know: its words before the first number or bracket.
func objectName(obj string) string {
	var words []string
	for w := range strings.FieldsSeq(obj) {
		if w == "" || strings.ContainsAny(w[:1], "0123456789[(") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// advisoryKey turns pg_locks' [database, classid, objid, objsubid] of an
// advisory lock back into the key the application passed: objsubid 1 is
// the bigint form (classid the high half, objid the low), 2 the form with
// two int4 keys.
func advisoryKey(obj string) string {
	m := advisoryText.FindStringSubmatch(obj)
	if m == nil {
		return ""
	}
	hi, err1 := strconv.ParseUint(m[2], 10, 32)
	lo, err2 := strconv.ParseUint(m[3], 10, 32)
	if err1 != nil || err2 != nil {
		return ""
	}
	switch m[4] {
	case "1":
		return fmt.Sprintf("(%d)", int64(hi<<32|lo))
	case "2":
		return fmt.Sprintf("(%d, %d)", int32(uint32(hi)), int32(uint32(lo)))
	}
	return ""
}

// Model describes the lock in the model's words, or says that the model
// has no such lock.
func (l Lock) Model() string {
	switch l.Kind {
	case lockmodel.Row:
		what := "a row lock"
		if l.Mode != 0 {
			what = l.Mode.String() + " row lock"
		}
		if l.Relation != "" {
			what += " on " + l.Relation
		}
		if l.Object == "transaction" {
			return what + " (waits for the transaction holding the row to end)"
		}
		return what
	case lockmodel.Table:
		if l.Mode == 0 {
			return "a table lock on " + l.Relation
		}
		return l.Mode.String() + " lock on table " + l.Relation
	case lockmodel.Advisory:
		s := "advisory lock " + l.Key
		if l.Mode == lockmodel.AdvisoryShared {
			s = "shared " + s
		}
		return s
	}
	if l.Object == "" {
		return "a lock the model does not know"
	}
	return "a lock on " + l.Object + ", which the lock model does not know"
}

// Class returns the lock-graph class the lock belongs to ("row:accounts",
// "table:accounts", "advisory:(42)"), when the log says enough to name it.
func (l Lock) Class() string {
	switch {
	case l.Kind == lockmodel.Row && l.Relation != "" && !strings.HasPrefix(l.Relation, "oid "):
		return "row:" + tableName(l.Relation)
	case l.Kind == lockmodel.Table && l.Relation != "" && !strings.HasPrefix(l.Relation, "oid "):
		return "table:" + tableName(l.Relation)
	case l.Kind == lockmodel.Advisory && l.Key != "":
		return "advisory:" + l.Key
	}
	return ""
}

// tableName is a relation name as the model writes it: public. dropped.
func tableName(rel string) string {
	return strings.TrimPrefix(rel, "public.")
}

// Short names of the model's kinds.
const (
	rowKind      = lockmodel.Row
	tableKind    = lockmodel.Table
	advisoryKind = lockmodel.Advisory
)
