package explain

import (
	"encoding/csv"
	"regexp"
	"strconv"
	"strings"
)

// Column roles of a blocked/blocking query's output, by column name. The
// names are those of the queries people run (the PostgreSQL wiki's "Lock
// Monitoring", pg_blocking_pids() over pg_stat_activity) and close
// variants.
var (
	blockedPIDCols = []string{"blocked_pid", "waiting_pid", "blocked_process", "waiting_process", "pid"}
	blockingCols   = []string{"blocking_pid", "blocking_pids", "blocked_by", "pg_blocking_pids", "blocker_pid", "blockers", "holder_pid", "blocking_process"}
	blockedSQLCols = []string{"blocked_statement", "blocked_query", "waiting_statement", "waiting_query", "query", "current_query", "statement"}
	blockingSQLCol = []string{"blocking_statement", "current_statement_in_blocking_process", "blocking_query", "blocker_query", "holder_query", "blocking_current_query"}
	modeCols       = []string{"mode", "blocked_mode", "waiting_mode", "wanted_mode"}
	locktypeCols   = []string{"locktype", "blocked_locktype", "lock_type"}
	relationCols   = []string{"relation", "relname", "locked_relation", "blocked_relation", "table_name"}
)

// psqlTable is the output of a blocked/blocking query being read.
type psqlTable struct {
	csv  bool
	cols []string
	// Column indexes of each role; -1 when absent.
	pid, blocking, sql, blockingSQL, mode, locktype, relation int
	// cont is the row being continued (a value with a line break: psql
	// ends the line with "+"), csvBuf a CSV row spanning lines.
	cont    []string
	contFor []bool
	line    int
	csvBuf  string
	// out receives each row.
	out func(*BlockRow)
}

// psqlFooter ends an aligned table: "(2 rows)".
var psqlFooter = regexp.MustCompile(`^\(\d+ rows?\)$`)

// newPsqlTable reads a header line; nil unless it names a blocked process
// and what blocks it.
func newPsqlTable(header string, isCSV bool) *psqlTable {
	var cols []string
	if isCSV {
		if !strings.Contains(header, ",") || strings.ContainsAny(header, " \t") && !strings.Contains(header, `"`) {
			return nil
		}
		rec, err := csv.NewReader(strings.NewReader(header)).Read()
		if err != nil {
			return nil
		}
		cols = rec
	} else {
		for c := range strings.SplitSeq(header, "|") {
			cols = append(cols, strings.TrimSpace(c))
		}
	}
	for i, c := range cols {
		cols[i] = strings.ToLower(strings.TrimSpace(c))
	}
	t := &psqlTable{csv: isCSV, cols: cols}
	t.blocking = t.find(blockingCols)
	t.pid = t.find(blockedPIDCols)
	if t.pid < 0 || t.blocking < 0 {
		return nil
	}
	t.sql = t.find(blockedSQLCols)
	t.blockingSQL = t.find(blockingSQLCol)
	t.mode = t.find(modeCols)
	t.locktype = t.find(locktypeCols)
	t.relation = t.find(relationCols)
	return t
}

func (t *psqlTable) find(names []string) int {
	for _, n := range names {
		for i, c := range t.cols {
			if c == n {
				return i
			}
		}
	}
	return -1
}

// add reads a line of the table; false when the table has ended (the line
// is not the table's: the caller reads it again).
func (t *psqlTable) add(line string, n int) bool {
	trimmed := strings.TrimSpace(line)
	if t.csv {
		if t.csvBuf == "" && trimmed == "" {
			return false
		}
		if t.csvBuf != "" {
			t.csvBuf += "\n" + line
		} else {
			t.csvBuf, t.line = line, n
		}
		if !balanced(t.csvBuf) {
			if len(t.csvBuf) > 8*maxField {
				t.csvBuf = ""
			}
			return true
		}
		r := csv.NewReader(strings.NewReader(t.csvBuf))
		r.FieldsPerRecord = -1
		rec, err := r.Read()
		t.csvBuf = ""
		if err != nil || len(rec) != len(t.cols) {
			return false
		}
		t.emit(rec, t.line, false)
		return true
	}
	if trimmed == "" || psqlFooter.MatchString(trimmed) {
		t.flush(false)
		return trimmed != "" // the footer is the table's; a blank line is not
	}
	cells := strings.Split(line, "|")
	if len(cells) < len(t.cols) {
		t.flush(false)
		return false
	}
	if len(cells) > len(t.cols) {
		// A value with "|" in it (SQL's || operator): psql does not
		// escape it. Give the extra cells back to the widest
		// statement column.
		at := max(t.sql, t.blockingSQL)
		if at < 0 {
			at = len(t.cols) - 1
		}
		extra := len(cells) - len(t.cols)
		joined := strings.Join(cells[at:at+extra+1], "|")
		cells = append(append(cells[:at:at], joined), cells[at+extra+1:]...)
	}
	wraps := make([]bool, len(cells))
	for i, c := range cells {
		c = strings.TrimRight(c, " ")
		if strings.HasSuffix(c, "+") {
			wraps[i] = true
			c = strings.TrimSuffix(c, "+")
		}
		cells[i] = strings.TrimSpace(c)
	}
	if t.cont != nil {
		for i, c := range cells {
			if t.contFor[i] && c != "" {
				t.cont[i] += "\n" + c
			}
		}
		t.contFor = wraps
	} else {
		t.cont, t.contFor, t.line = cells, wraps, n
	}
	if !anyTrue(t.contFor) {
		t.flush(false)
	}
	return true
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// flush emits the row being continued.
func (t *psqlTable) flush(incomplete bool) {
	if t.cont != nil {
		t.emit(t.cont, t.line, incomplete)
	}
	t.cont, t.contFor = nil, nil
}

func (t *psqlTable) emit(cells []string, line int, incomplete bool) {
	get := func(i int) string {
		if i >= 0 && i < len(cells) {
			s, _ := clip(cells[i])
			return s
		}
		return ""
	}
	pid, err := strconv.Atoi(strings.TrimSpace(get(t.pid)))
	if err != nil {
		return
	}
	src := "psql"
	if t.csv {
		src = "psql-csv"
	}
	r := &BlockRow{Line: line, PID: pid, Statement: get(t.sql), Blocking: get(t.blockingSQL), Mode: get(t.mode),
		LockType: get(t.locktype), Relation: get(t.relation), Source: src, Incomplete: incomplete}
	for f := range strings.FieldsFuncSeq(get(t.blocking), func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' }) {
		if n, err := strconv.Atoi(f); err == nil {
			r.BlockedBy = append(r.BlockedBy, n)
		}
	}
	if len(r.BlockedBy) == 0 {
		return // a process that waits for nobody
	}
	t.out(r)
}

// endTable hands the rows of the table being read to the sink.
func (rd *reader) endTable() {
	t := rd.table
	if t == nil {
		return
	}
	rd.table = nil
	t.flush(true)
}

// startTable reads a psql table from here on: its rows go to the sink as
// they are read.
func (rd *reader) startTable(t *psqlTable) {
	rd.closeAll()
	t.out = func(r *BlockRow) {
		rd.stats.Entries[r.Source]++
		rd.sink.row(r)
	}
	rd.table = t
}
