package lockmodel

import (
	"strings"
	"testing"
)

// The expected grids below are the measured tables of pg-lock-facts.md,
// copied row by row in its markdown form (held mode down, requested mode
// across; X = the request blocked).

// rowGrid is the FOR KEY SHARE .. FOR UPDATE corner (statements 1-4) of the
// 12×12 matrix of pg-lock-facts §4.
const rowGrid = `
| 1 FOR KEY SHARE | . | . | . | X |
| 2 FOR SHARE | . | . | X | X |
| 3 FOR NO KEY UPDATE | . | X | X | X |
| 4 FOR UPDATE | X | X | X | X |
`

// tableGrid is the matrix of pg-lock-facts §8.
const tableGrid = `
| ACCESS SHARE | . | . | . | . | . | . | . | X |
| ROW SHARE | . | . | . | . | . | . | X | X |
| ROW EXCLUSIVE | . | . | . | . | X | X | X | X |
| SHARE UPDATE EXCLUSIVE | . | . | . | X | X | X | X | X |
| SHARE | . | . | X | X | . | X | X | X |
| SHARE ROW EXCLUSIVE | . | . | X | X | X | X | X | X |
| EXCLUSIVE | . | X | X | X | X | X | X | X |
| ACCESS EXCLUSIVE | X | X | X | X | X | X | X | X |
`

// advisoryGrid: shared/shared is the only compatible pair (pg-lock-facts
// T2g).
const advisoryGrid = `
| shared | . | X |
| exclusive | X | X |
`

// parseGrid reads a markdown grid. It checks that each row's label names
// the mode it stands for, so a grid in the wrong order cannot pass.
func parseGrid(t *testing.T, grid string, modes []Mode) [][]bool {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(grid), "\n")
	if len(lines) != len(modes) {
		t.Fatalf("grid has %d rows, want %d", len(lines), len(modes))
	}
	cells := make([][]bool, len(lines))
	for i, line := range lines {
		fields := strings.Split(strings.Trim(line, "| "), "|")
		if len(fields) != len(modes)+1 {
			t.Fatalf("grid row %q has %d cells, want %d", line, len(fields)-1, len(modes))
		}
		label := strings.TrimLeft(strings.TrimSpace(fields[0]), "0123456789 ")
		if label != modes[i].String() {
			t.Fatalf("grid row %d is %q, want %q", i, label, modes[i])
		}
		for _, f := range fields[1:] {
			switch strings.TrimSpace(f) {
			case "X":
				cells[i] = append(cells[i], true)
			case ".":
				cells[i] = append(cells[i], false)
			default:
				t.Fatalf("bad cell %q in row %q", f, line)
			}
		}
	}
	return cells
}

var (
	rowModes      = []Mode{ForKeyShare, ForShare, ForNoKeyUpdate, ForUpdate}
	tableModes    = []Mode{AccessShare, RowShare, RowExclusive, ShareUpdateExclusive, Share, ShareRowExclusive, Exclusive, AccessExclusive}
	advisoryModes = []Mode{AdvisoryShared, AdvisoryExclusive}
	allModes      = concatModes(rowModes, tableModes, advisoryModes)
)

func concatModes(lists ...[]Mode) []Mode {
	var all []Mode
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

func TestModesConflictMatrices(t *testing.T) {
	for _, m := range []struct {
		name  string
		grid  string
		modes []Mode
	}{
		{"row", rowGrid, rowModes},
		{"table", tableGrid, tableModes},
		{"advisory", advisoryGrid, advisoryModes},
	} {
		t.Run(m.name, func(t *testing.T) {
			want := parseGrid(t, m.grid, m.modes)
			for i, held := range m.modes {
				for j, req := range m.modes {
					if got := ModesConflict(held, req); got != want[i][j] {
						t.Errorf("ModesConflict(%v, %v) = %v, want %v", held, req, got, want[i][j])
					}
				}
			}
		})
	}
}

func TestModesConflictCrossKind(t *testing.T) {
	invalid := []Mode{0, 5, 10, 19, 20, 23, 255}
	for _, a := range allModes {
		for _, b := range allModes {
			if a.Kind() != b.Kind() && ModesConflict(a, b) {
				t.Errorf("ModesConflict(%v, %v) = true across kinds", a, b)
			}
		}
		for _, b := range invalid {
			if ModesConflict(a, b) || ModesConflict(b, a) {
				t.Errorf("ModesConflict with invalid mode %d and %v = true", b, a)
			}
		}
	}
}

// TestStatementRowModes checks the modes the model gives to UPDATE and
// DELETE against the rows "5 UPDATE non-key" and "10 DELETE" of
// pg-lock-facts §4 (columns 1-4: FOR KEY SHARE .. FOR UPDATE requested by
// another transaction).
func TestStatementRowModes(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		want []bool // conflicts with rowModes
	}{
		{"UPDATE m SET v = v + 1 WHERE id = 1", []bool{false, true, true, true}},
		{"DELETE FROM m WHERE id = 1", []bool{true, true, true, true}},
	} {
		var row *Lock
		for _, e := range Analyze(tt.sql).Effects {
			if e.Lock.Kind == Row {
				row = &e.Lock
			}
		}
		if row == nil {
			t.Fatalf("%s: no row lock", tt.sql)
		}
		for i, req := range rowModes {
			if got := ModesConflict(row.Mode, req); got != tt.want[i] {
				t.Errorf("%s holds %v: conflict with %v = %v, want %v", tt.sql, row.Mode, req, got, tt.want[i])
			}
		}
	}
}

func TestModeKind(t *testing.T) {
	for _, tt := range []struct {
		modes []Mode
		kind  Kind
	}{
		{rowModes, Row}, {tableModes, Table}, {advisoryModes, Advisory}, {[]Mode{0, 5, 10, 19, 20, 23}, 0},
	} {
		for _, m := range tt.modes {
			if got := m.Kind(); got != tt.kind {
				t.Errorf("Mode(%d).Kind() = %v, want %v", m, got, tt.kind)
			}
		}
	}
}

func TestCovers(t *testing.T) {
	for _, tt := range []struct {
		a, b Mode
		want bool
	}{
		{RowExclusive, AccessShare, true},
		{RowExclusive, RowShare, true},
		{RowShare, RowExclusive, false},
		{Share, RowExclusive, false},
		{RowExclusive, Share, false},
		{AccessExclusive, Share, true},
		{Share, Share, true},
		{ForUpdate, ForKeyShare, true},
		{ForShare, ForNoKeyUpdate, false},
		{ForNoKeyUpdate, ForShare, true},
		{AdvisoryExclusive, AdvisoryShared, true},
		{AccessExclusive, ForUpdate, false},
	} {
		if got := covers(tt.a, tt.b); got != tt.want {
			t.Errorf("covers(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStrings(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{ForNoKeyUpdate.String(), "FOR NO KEY UPDATE"},
		{ShareRowExclusive.String(), "SHARE ROW EXCLUSIVE"},
		{AdvisoryShared.String(), "shared"},
		{Mode(99).String(), "Mode(99)"},
		{Row.String(), "row"},
		{Table.String(), "table"},
		{Advisory.String(), "advisory"},
		{AdvisoryKey{Parts: []KeyPart{{Const: "42"}}}.String(), "(42)"},
		{AdvisoryKey{Parts: []KeyPart{{Const: "1"}, {Const: "2"}}}.String(), "(1, 2)"},
		{AdvisoryKey{Parts: []KeyPart{{Param: 1}}}.String(), "($1)"},
		{AdvisoryKey{Parts: []KeyPart{{}}}.String(), "(?)"},
		{Lock{Kind: Row, Table: "subscriptions", Mode: ForUpdate}.String(), "FOR UPDATE rows of subscriptions"},
		{Lock{Kind: Row, Table: "jobs", Mode: ForUpdate, Wait: SkipLocked}.String(), "FOR UPDATE rows of jobs SKIP LOCKED"},
		{Lock{Kind: Table, Table: "ta", Mode: ShareRowExclusive}.String(), "SHARE ROW EXCLUSIVE lock on table ta"},
		{Lock{Kind: Table, Table: "ta", Mode: Share, Wait: NoWait}.String(), "SHARE lock on table ta NOWAIT"},
		{Lock{Kind: Advisory, Mode: AdvisoryExclusive, Scope: Session, Key: AdvisoryKey{Parts: []KeyPart{{Const: "42"}}}}.String(), "session advisory lock (42)"},
		{Lock{Kind: Advisory, Mode: AdvisoryShared, Scope: Xact, Key: AdvisoryKey{Parts: []KeyPart{{Param: 1}}}}.String(), "shared transaction advisory lock ($1)"},
		{Lock{Kind: Advisory, Mode: AdvisoryExclusive, Scope: Xact, Wait: Try, Key: AdvisoryKey{Parts: []KeyPart{{Const: "7"}}}}.String(), "transaction advisory lock (7) (try)"},
		{Lock{}.String(), "no lock"},
		{Acquire.String(), "acquire"},
		{UnlockAll.String(), "unlock all"},
		{RollbackTo.String(), "rollback to savepoint"},
		{ReleaseSavepoint.String(), "release savepoint"},
		{CreateTemp.String(), "create temp table"},
		{EffectKind(0).String(), "EffectKind(0)"},
		{SkipLocked.String(), "skip locked"},
		{Session.String(), "session"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	// Every valid mode has a PostgreSQL name.
	for _, m := range allModes {
		if strings.HasPrefix(m.String(), "Mode(") {
			t.Errorf("mode %d has no name", m)
		}
	}
}
