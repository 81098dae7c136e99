package lockgraph

import (
	"cmp"
	"strings"
)

// ClassKind is the kind of object a lock class names.
type ClassKind uint8

// The kinds of lock class. They are numbered in the order their text forms
// sort ("advisory:" < "advisory@" < "row:" < "table:"), so that sorting
// classes by Compare and by String agree.
const (
	// AdvisoryKey is an advisory lock whose key is known: constants, a
	// parametric key whose placeholders ("?p0") the callers bind, or a
	// key shape: the run-time parts named by what the program feeds them
	// ("(<accountid>)", "(42, <?>)"), so that every lock of accounts'
	// keys is one class wherever it is taken.
	AdvisoryKey ClassKind = iota + 1
	// AdvisorySite is an advisory lock whose key is known only at run
	// time: its own class, named after the SQL site that takes it, never
	// equal to another site's.
	AdvisorySite
	// RowClass is the rows of one table.
	RowClass
	// TableClass is one table (a relation lock).
	TableClass
)

// Class identifies a lockable object: two requests conflict only when they
// name the same class. It is comparable, so it can key maps and be compared
// with ==; String gives its stable text form, used in fingerprints and
// cache keys.
type Class struct {
	Kind ClassKind
	// Name is the table for RowClass and TableClass, and the key for
	// AdvisoryKey, as the lock model writes it: "(42)", "(7, ?p1)",
	// "(hashtext('billing'))".
	Name string
	// Site is the position ("file:line:col") of the SQL that takes the
	// lock, for AdvisorySite, and for a parametric AdvisoryKey (the class
	// it falls back to where no caller binds the key); empty otherwise.
	Site string
	// Shape is, for a parametric AdvisoryKey whose parameters have
	// names, the key shape it falls back to instead of its site
	// ("(<accountid>)" for pg_advisory_lock($1) fed the accountID
	// parameter); empty otherwise.
	Shape string
}

// AdvisoryParam returns the class of a parametric advisory key, such as
// "(?p2)", taken at site, which falls back to the key shape shape (if not
// empty) where no caller binds it.
func AdvisoryParam(key, site, shape string) Class {
	c := AdvisoryOf(key, site)
	if c.Site != "" {
		c.Shape = shape
	}
	return c
}

// RowsOf returns the class of the rows of a table.
func RowsOf(table string) Class { return Class{Kind: RowClass, Name: table} }

// TableOf returns the class of a table's relation lock.
func TableOf(table string) Class { return Class{Kind: TableClass, Name: table} }

// AdvisoryOf returns the class of an advisory lock with a known key, such as
// "(42)" or "(1, ?p0)". A key with placeholders is parametric: site is the
// SQL site it falls back to; it is ignored for a key of constants.
func AdvisoryOf(key, site string) Class {
	c := Class{Kind: AdvisoryKey, Name: key}
	if strings.Contains(key, "?p") {
		c.Site = site
	}
	return c
}

// AdvisoryAt returns the class of an advisory lock whose key is known only at
// run time, taken at site.
func AdvisoryAt(site string) Class { return Class{Kind: AdvisorySite, Site: site} }

// IsZero reports whether c names no object.
func (c Class) IsZero() bool { return c == Class{} }

// IsRow reports whether c is the rows of a table.
func (c Class) IsRow() bool { return c.Kind == RowClass }

// IsTable reports whether c is a table's relation lock.
func (c Class) IsTable() bool { return c.Kind == TableClass }

// IsAdvisory reports whether c is an advisory lock, of a known key or not.
func (c Class) IsAdvisory() bool { return c.Kind == AdvisoryKey || c.Kind == AdvisorySite }

// Table returns the table of a row or table class, and "" for others.
func (c Class) Table() string {
	if c.Kind == RowClass || c.Kind == TableClass {
		return c.Name
	}
	return ""
}

// Parametric reports whether c is an advisory key that the callers supply.
func (c Class) Parametric() bool { return c.Kind == AdvisoryKey && c.Site != "" }

// RunTime reports whether c is an advisory key known only at run time: its
// SQL site's own class, or a key shape ("(<accountid>)", "(7, <?>)").
func (c Class) RunTime() bool {
	return c.Kind == AdvisorySite || c.Kind == AdvisoryKey && strings.Contains(c.Name, "<")
}

// Key returns c without the fallback site of a parametric key: a lock and
// its unlock at two sites name the same key.
func (c Class) Key() Class {
	if c.Kind == AdvisoryKey {
		c.Site, c.Shape = "", ""
	}
	return c
}

// Concrete is the class c has where nobody binds its key: a parametric key
// falls back to its shape, or else to its SQL site's own class.
func (c Class) Concrete() Class {
	if !c.Parametric() {
		return c
	}
	if c.Shape != "" {
		return AdvisoryOf(c.Shape, "")
	}
	return AdvisoryAt(c.Site)
}

// String is the class's stable text form: "row:T", "table:T",
// "advisory:KEY", "advisory:KEY|@SITE" for a parametric key, and
// "advisory@SITE".
func (c Class) String() string {
	switch c.Kind {
	case RowClass:
		return "row:" + c.Name
	case TableClass:
		return "table:" + c.Name
	case AdvisoryKey:
		if c.Site != "" {
			return "advisory:" + c.Name + "|@" + c.Site
		}
		return "advisory:" + c.Name
	case AdvisorySite:
		return "advisory@" + c.Site
	}
	return ""
}

// Describe names the class for people: "rows of subscriptions", "table
// subscriptions", "advisory lock (42)", "advisory lock taken at FILE:LINE".
func (c Class) Describe() string {
	switch c.Kind {
	case RowClass:
		return "rows of " + c.Name
	case TableClass:
		return "table " + c.Name
	case AdvisoryKey:
		return "advisory lock " + c.keyText()
	case AdvisorySite:
		return "advisory lock taken at " + c.Site
	}
	return ""
}

// keyText is the key of an advisory class as its text form shows it after
// "advisory:".
func (c Class) keyText() string {
	if c.Site != "" {
		return c.Name + "|@" + c.Site
	}
	return c.Name
}

// Short is the name of the locked object alone: "subscriptions" for its
// rows, "table subscriptions", "advisory lock (42)"; used in fix
// suggestions.
func (c Class) Short() string {
	if c.Kind == RowClass {
		return c.Name
	}
	return c.Describe()
}

// CompareClasses orders classes as their text forms sort.
func CompareClasses(a, b Class) int {
	if a.Kind != b.Kind {
		return cmp.Compare(a.Kind, b.Kind)
	}
	if a.Name == b.Name {
		return cmp.Compare(a.Site, b.Site)
	}
	if a.Kind == AdvisoryKey && (a.Site != "" || b.Site != "") {
		// The site follows the key in the text form.
		return cmp.Compare(a.String(), b.String())
	}
	return cmp.Compare(a.Name, b.Name)
}
