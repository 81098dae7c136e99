package lockmodel

// matrix is a PostgreSQL lock conflict matrix for the modes of one Kind.
//
// The matrices are kept as data, one string per held mode and one character
// per requested mode (both weakest first), so that they can be compared cell
// by cell with the tables measured on a live server (pg-lock-facts.md §4 and
// §8) and with PostgreSQL's documentation (tables 13.2 and 13.3). 'X' means
// the requested mode conflicts with the held one; '.' means it does not.
type matrix struct {
	// first is the weakest mode of the kind; it indexes row and column 0.
	first Mode
	rows  []string
}

// rowConflicts holds the row-level lock conflicts (pg-lock-facts §4; the
// columns are, in order, FOR KEY SHARE, FOR SHARE, FOR NO KEY UPDATE and
// FOR UPDATE).
var rowConflicts = matrix{first: ForKeyShare, rows: []string{
	"...X", // FOR KEY SHARE
	"..XX", // FOR SHARE
	".XXX", // FOR NO KEY UPDATE
	"XXXX", // FOR UPDATE
}}

// tableConflicts holds the table-level lock conflicts (pg-lock-facts §8;
// the columns are, in order, ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE, SHARE
// UPDATE EXCLUSIVE, SHARE, SHARE ROW EXCLUSIVE, EXCLUSIVE and ACCESS
// EXCLUSIVE).
var tableConflicts = matrix{first: AccessShare, rows: []string{
	".......X", // ACCESS SHARE
	"......XX", // ROW SHARE
	"....XXXX", // ROW EXCLUSIVE
	"...XXXXX", // SHARE UPDATE EXCLUSIVE
	"..XX.XXX", // SHARE
	"..XXXXXX", // SHARE ROW EXCLUSIVE
	".XXXXXXX", // EXCLUSIVE
	"XXXXXXXX", // ACCESS EXCLUSIVE
}}

// advisoryConflicts holds the advisory lock conflicts (pg-lock-facts T2g:
// two shared holds are the only compatible pair; the columns are shared and
// exclusive).
var advisoryConflicts = matrix{first: AdvisoryShared, rows: []string{
	".X", // shared
	"XX", // exclusive
}}

// conflicts looks up one cell. Modes outside the matrix never conflict, so a
// malformed Mode value cannot make the lookup panic.
func (m matrix) conflicts(held, requested Mode) bool {
	h, r := int(held)-int(m.first), int(requested)-int(m.first)
	if h < 0 || h >= len(m.rows) || r < 0 || r >= len(m.rows[h]) {
		return false
	}
	return m.rows[h][r] == 'X'
}

// matrixOf returns the conflict matrix for the modes of kind k.
func matrixOf(k Kind) matrix {
	switch k {
	case Row:
		return rowConflicts
	case Table:
		return tableConflicts
	case Advisory:
		return advisoryConflicts
	}
	return matrix{}
}

// ModesConflict reports whether a request for the requested mode has to wait
// while another transaction or session holds the held mode on the same
// object. Modes of different kinds lock different objects, so they never
// conflict. (A session never conflicts with its own locks; that is for the
// caller to decide.)
func ModesConflict(held, requested Mode) bool {
	k := held.Kind()
	if k == 0 || k != requested.Kind() {
		return false
	}
	m := matrixOf(k)
	return m.conflicts(held, requested)
}

// Kind returns the kind of object that the mode locks, or 0 for a value that
// is not a valid Mode.
func (m Mode) Kind() Kind {
	switch {
	case m >= ForKeyShare && m <= ForUpdate:
		return Row
	case m >= AccessShare && m <= AccessExclusive:
		return Table
	case m >= AdvisoryShared && m <= AdvisoryExclusive:
		return Advisory
	}
	return 0
}

// covers reports whether holding mode a blocks every request that holding b
// blocks, i.e. whether a is at least as strong as b. It lets one statement
// that takes several modes on the same table be summarised by its strongest
// mode (SELECT's ACCESS SHARE is covered by UPDATE's ROW EXCLUSIVE). The
// table modes are only partially ordered: SHARE and ROW EXCLUSIVE cover
// neither each other.
func covers(a, b Mode) bool {
	k := a.Kind()
	if k == 0 || k != b.Kind() {
		return false
	}
	m := matrixOf(k)
	for i := range m.rows {
		r := m.first + Mode(i)
		if m.conflicts(b, r) && !m.conflicts(a, r) {
			return false
		}
	}
	return true
}
