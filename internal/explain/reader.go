package explain

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Stats says what a reader saw, for messages about input that explains
// nothing.
type Stats struct {
	// Lines is the number of lines read.
	Lines int
	// Entries counts the server messages and driver errors read, by
	// format ("stderr", "csvlog", ...), and the rows of psql output.
	Entries map[string]int
	// CutLines counts lines longer than the line limit, cut.
	CutLines int
	// BinaryLines counts lines that are not text (a NUL byte, invalid
	// UTF-8).
	BinaryLines int
}

var (
	// prefixPID finds the process id in a log_line_prefix (%p).
	prefixPID = regexp.MustCompile(`\[(\d+)\]|\bpid=(\d+)|^(\d+)\s`)
	// prefixTime finds a time stamp in a log_line_prefix (%m, %t, %n is
	// left as a number).
	prefixTime = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?: ?[A-Z]{2,5}\b|[+-]\d\d(?::?\d\d)?)?`)
	// csvStart is the beginning of a csvlog record: its time stamp.
	csvStart = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? [A-Za-z0-9+:-]+,`)
	// driverText is an error as pgx (…(SQLSTATE 40P01)) or lib/pq
	// (pq: …) prints it.
	driverText = regexp.MustCompile(`(?:\b(ERROR|FATAL):\s+(.+?)\s+\(SQLSTATE ([0-9A-Z]{5})\)|\bpq: (deadlock detected|canceling statement due to lock timeout|could not obtain lock.*))`)
	// structField is one string field of a Go struct printed with %#v
	// or %+v (&pgconn.PgError{Severity:"ERROR", ...}).
	structField = regexp.MustCompile(`\b([A-Z][A-Za-z]*):("(?:[^"\\]|\\.)*")`)
	// detailLine is a line of a deadlock's DETAIL, or a field of a
	// driver's error, written on a line of its own.
	detailLine = regexp.MustCompile(`^\s*(?:(DETAIL|HINT|CONTEXT|STATEMENT|Detail|Hint|Where|Context):\s*)?(.*)$`)
	// processLine starts a line of a deadlock's DETAIL.
	processLine = regexp.MustCompile(`Process \d+(?: waits for |: )`)
	// psqlSeparator is the line under a psql aligned header.
	psqlSeparator = regexp.MustCompile(`^-+(?:\+-+)*$`)
)

// reader turns lines into entries and rows, which it hands to sink.
type reader struct {
	lr    *lineReader
	sink  sink
	stats Stats

	// open are stderr entries waiting for their DETAIL, CONTEXT and
	// STATEMENT lines, oldest first; field is the field a tab-indented
	// continuation line extends.
	open  []*Entry
	field *string
	// drv is a driver's error whose detail lines follow it.
	drv *Entry
	// csv is a csvlog record spanning lines.
	csv      strings.Builder
	csvLine  int
	csvCut   bool
	inRecord bool
	// table is a psql table being read.
	table *psqlTable
	// prev is the previous line, a psql header when the next one is its
	// separator.
	prev string
}

// sink receives what a reader finds, in input order.
type sink interface {
	entry(*Entry)
	row(*BlockRow)
}

// scan reads r to its end. Only an error of r itself is returned: input
// that is not a log is counted in the stats.
func scan(r io.Reader, s sink) (Stats, error) {
	lr, err := newLineReader(r)
	if err != nil {
		return Stats{}, err
	}
	rd := &reader{lr: lr, sink: s, stats: Stats{Entries: map[string]int{}}}
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rd.finish(true)
			return rd.stats, err
		}
		rd.line(line)
	}
	rd.finish(false)
	return rd.stats, nil
}

func (rd *reader) line(b []byte) {
	if isBinary(b) {
		rd.stats.BinaryLines++
		if rd.inRecord || rd.table != nil {
			// A record cut by garbage is incomplete.
			rd.endCSV(true)
			rd.endTable()
		}
		rd.closeAll()
		return
	}
	line := string(b)
	if !utf8.Valid(b) {
		// A server whose encoding is not UTF-8 logs statements in it:
		// read them, with the odd bytes replaced.
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	defer func() { rd.prev = line }()
	if rd.inRecord {
		rd.csvAppend(line)
		return
	}
	if rd.table != nil {
		if rd.table.add(line, rd.lr.line) {
			return
		}
		rd.endTable()
	}
	trimmed := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "\t") && rd.field != nil && len(rd.open) > 0:
		rd.open[len(rd.open)-1].appendLine(rd.field, line[1:])
		return
	case strings.HasPrefix(trimmed, "{") && rd.jsonlog(trimmed):
		return
	case csvStart.MatchString(line):
		rd.closeAll()
		rd.inRecord, rd.csvLine, rd.csvCut = true, rd.lr.line, false
		rd.csv.Reset()
		rd.csvAppendFirst(line)
		return
	case psqlSeparator.MatchString(trimmed) && rd.prev != "":
		if t := newPsqlTable(rd.prev, false); t != nil {
			rd.startTable(t)
			return
		}
	}
	if prefix, sev, text, ok := splitStderr(line); ok && !strings.Contains(prefix, "SQLSTATE") {
		rd.stderr(prefix, sev, text)
		return
	}
	if strings.Contains(line, "Error{") && rd.structDump(line) {
		return
	}
	if m := driverText.FindStringSubmatchIndex(line); m != nil {
		rd.driverError(line, m)
		return
	}
	if rd.drv != nil && rd.driverContinuation(line) {
		return
	}
	if strings.Contains(line, `\n`) && processLine.MatchString(line) {
		rd.escaped(line)
		return
	}
	if processLine.MatchString(line) {
		rd.closeAll()
		rd.drv = &Entry{Line: rd.lr.line, Severity: "ERROR", Message: "deadlock detected", Source: "driver"}
		rd.driverContinuation(line)
		return
	}
	if t := newPsqlTable(line, true); t != nil {
		rd.startTable(t)
		return
	}
	if trimmed != "" {
		// An unrelated line ends a driver's error (its detail lines
		// follow it directly); a server entry's lines are prefixed and
		// need no such care.
		rd.endDriver()
	}
}

// stderrKeywords are the words before ":  " in a stderr log line: the
// severities and the names of the fields that follow a message.
var stderrKeywords = map[string]bool{
	"LOG": true, "ERROR": true, "FATAL": true, "PANIC": true, "WARNING": true, "NOTICE": true, "INFO": true,
	"DEBUG": true, "DEBUG1": true, "DEBUG2": true, "DEBUG3": true, "DEBUG4": true, "DEBUG5": true,
	"DETAIL": true, "HINT": true, "CONTEXT": true, "STATEMENT": true, "QUERY": true, "LOCATION": true,
}

// splitStderr splits a stderr log line after any log_line_prefix:
// "2024-05-01 10:00:00.123 UTC [42] app@db ERROR:  text" gives the prefix,
// "ERROR" and the text. (A regular expression with a lazy prefix costs
// several times more on a large log.)
func splitStderr(line string) (prefix, keyword, text string, ok bool) {
	from := 0
	for {
		i := strings.Index(line[from:], ":  ")
		if i < 0 {
			return "", "", "", false
		}
		i += from
		j := i
		for j > 0 && (line[j-1] >= 'A' && line[j-1] <= 'Z' || line[j-1] >= '0' && line[j-1] <= '9') {
			j--
		}
		if stderrKeywords[line[j:i]] && (j == 0 || !isWordByte(line[j-1])) {
			return line[:j], line[j:i], line[i+3:], true
		}
		from = i + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isBinary reports whether a line is not text: a NUL byte, or mostly
// control bytes or bytes that are not UTF-8 (a log in LATIN1 still reads as
// text).
func isBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	ctrl := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != 0x1b {
			ctrl++
		}
	}
	if ctrl*10 > len(b) {
		return true
	}
	if utf8.Valid(b) {
		return false
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		i += n
	}
	return bad*4 > len(b)
}

// stderr handles a line of the stderr format.
func (rd *reader) stderr(prefix, severity, text string) {
	rd.endDriver()
	if isSeverity(severity) {
		// A new message ends the previous ones: the server writes a
		// message and its DETAIL, CONTEXT, ... lines in one piece.
		rd.closeAll()
		// The time stamp is read only for entries that make a report.
		e := &Entry{Line: rd.lr.line, PID: prefixPIDOf(prefix), Severity: severity, prefix: strings.Clone(prefix), Source: "stderr"}
		e.set(&e.Message, text)
		rd.open = append(rd.open, e)
		rd.field = &e.Message
		return
	}
	// DETAIL, CONTEXT, ...: a field of the open entry.
	var e *Entry
	if n := len(rd.open); n > 0 {
		e = rd.open[n-1]
	} else {
		// The entry's first line is missing (the log starts here, or
		// it was cut): keep the field alone.
		e = &Entry{Line: rd.lr.line, PID: prefixPIDOf(prefix), prefix: strings.Clone(prefix), Truncated: true, Source: "stderr"}
		rd.open = append(rd.open, e)
	}
	rd.field = e.field(severity)
	if rd.field == nil {
		rd.field = new(string) // QUERY, LOCATION: read and dropped
	}
	e.set(rd.field, text)
}

// prefixPIDOf returns the process id of a log_line_prefix (%p): "[42]"
// (the common forms, read without a regular expression), "pid=42", or a
// leading number; 0 when there is none.
func prefixPIDOf(prefix string) int {
	for i := 0; i < len(prefix); i++ {
		if prefix[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(prefix) && prefix[j] >= '0' && prefix[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(prefix) && prefix[j] == ']' {
			n, _ := strconv.Atoi(prefix[i+1 : j])
			return n
		}
	}
	if m := prefixPID.FindStringSubmatch(prefix); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				n, _ := strconv.Atoi(g)
				return n
			}
		}
	}
	return 0
}

// closeAll emits every open entry.
func (rd *reader) closeAll() {
	for _, e := range rd.open {
		rd.emit(e)
	}
	rd.open, rd.field = rd.open[:0], nil
	rd.endDriver()
}

func (rd *reader) emit(e *Entry) {
	rd.stats.Entries[e.Source]++
	rd.sink.entry(e)
}

// jsonlog handles a jsonlog line; false if the line is not one.
func (rd *reader) jsonlog(line string) bool {
	var j struct {
		Timestamp string `json:"timestamp"`
		PID       int    `json:"pid"`
		Severity  string `json:"error_severity"`
		Code      string `json:"state_code"`
		Message   string `json:"message"`
		Detail    string `json:"detail"`
		Hint      string `json:"hint"`
		Context   string `json:"context"`
		Statement string `json:"statement"`
	}
	if err := json.Unmarshal([]byte(line), &j); err != nil || j.Severity == "" || j.Message == "" {
		// Another program's JSON: a deadlock's detail may still be
		// quoted in one of its strings.
		if processLine.MatchString(line) {
			rd.escaped(line)
			return true
		}
		return false
	}
	rd.closeAll()
	e := &Entry{Line: rd.lr.line, Time: j.Timestamp, PID: j.PID, Severity: j.Severity, Code: j.Code, Source: "jsonlog"}
	e.set(&e.Message, j.Message)
	e.set(&e.Detail, j.Detail)
	e.set(&e.Hint, j.Hint)
	e.set(&e.Context, j.Context)
	e.set(&e.Statement, j.Statement)
	rd.emit(e)
	return true
}

// csvAppendFirst starts a csvlog record.
func (rd *reader) csvAppendFirst(line string) {
	rd.csv.WriteString(line)
	if balanced(rd.csv.String()) {
		rd.endCSV(false)
	}
}

// csvAppend adds a line to a csvlog record spanning lines.
func (rd *reader) csvAppend(line string) {
	if rd.csv.Len()+1+len(line) > 8*maxField {
		// A record larger than any field limit: keep reading to its
		// end, but drop what does not fit.
		rd.csvCut = true
		if strings.Count(line, `"`)%2 == 1 {
			rd.endCSV(false)
		}
		return
	}
	rd.csv.WriteString("\n")
	rd.csv.WriteString(line)
	if balanced(rd.csv.String()) {
		rd.endCSV(false)
	}
}

// balanced reports whether s has an even number of double quotes: a CSV
// record that ends here ("" inside a field counts twice).
func balanced(s string) bool { return strings.Count(s, `"`)%2 == 0 }

// endCSV parses the csvlog record read so far; cut says that the input
// ended (or turned to garbage) inside it.
func (rd *reader) endCSV(cut bool) {
	if !rd.inRecord {
		return
	}
	rd.inRecord = false
	text := rd.csv.String()
	rd.csv.Reset()
	if cut || rd.csvCut {
		// Close the open field so that what was read can be parsed.
		if !balanced(text) {
			text += `"`
		}
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if err != nil || len(rec) < 14 {
		return
	}
	// csvlog columns (PostgreSQL 13 to 17): log_time, user_name,
	// database_name, process_id, connection_from, session_id,
	// session_line_num, command_tag, session_start_time,
	// virtual_transaction_id, transaction_id, error_severity,
	// sql_state_code, message, detail, hint, internal_query,
	// internal_query_pos, context, query, ...
	get := func(i int) string {
		if i < len(rec) {
			return rec[i]
		}
		return ""
	}
	pid, _ := strconv.Atoi(get(3))
	e := &Entry{Line: rd.csvLine, Time: get(0), PID: pid, Severity: get(11), Code: get(12), Truncated: cut || rd.csvCut || len(rec) < 20, Source: "csvlog"}
	e.set(&e.Message, get(13))
	e.set(&e.Detail, get(14))
	e.set(&e.Hint, get(15))
	e.set(&e.Context, get(18))
	e.set(&e.Statement, get(19))
	rd.emit(e)
}

// structDump handles a driver error printed as a Go struct (%#v, %+v of
// the pointer's target); false if the line holds none.
func (rd *reader) structDump(line string) bool {
	fields := map[string]string{}
	for _, m := range structField.FindAllStringSubmatch(line, -1) {
		if v, err := strconv.Unquote(m[2]); err == nil {
			fields[m[1]] = v
		}
	}
	if fields["Message"] == "" || fields["Code"] == "" {
		return false
	}
	rd.closeAll()
	src := "pgx"
	if strings.Contains(line, "pq.Error") {
		src = "pq"
	}
	e := &Entry{Line: rd.lr.line, Severity: fields["Severity"], Code: fields["Code"], Source: src}
	e.set(&e.Message, fields["Message"])
	e.set(&e.Detail, fields["Detail"])
	e.set(&e.Hint, fields["Hint"])
	e.set(&e.Context, fields["Where"])
	e.set(&e.Statement, fields["InternalQuery"])
	rd.emit(e)
	return true
}

// driverError starts an error as a driver's Error() prints it; its
// detail may follow on the same line or on the next ones.
func (rd *reader) driverError(line string, m []int) {
	rd.closeAll()
	e := &Entry{Line: rd.lr.line, Severity: "ERROR", Source: "driver"}
	if m[2] >= 0 {
		e.Severity, e.Message, e.Code = line[m[2]:m[3]], line[m[4]:m[5]], line[m[6]:m[7]]
	} else {
		e.Message = line[m[8]:m[9]]
		switch {
		case strings.HasPrefix(e.Message, "deadlock"):
			e.Code = "40P01"
		default:
			e.Code = "55P03"
		}
	}
	rd.drv = e
	rest := line[m[1]:]
	if strings.Contains(rest, `\n`) {
		rest = unescape(rest)
	}
	for l := range strings.SplitSeq(rest, "\n") {
		rd.driverContinuation(strings.TrimLeft(l, " :;,"))
	}
}

// driverContinuation adds a line to the open driver error: a line of its
// deadlock detail, or a DETAIL/HINT/CONTEXT/STATEMENT field. It reports
// whether the line belonged to it.
func (rd *reader) driverContinuation(line string) bool {
	e := rd.drv
	m := detailLine.FindStringSubmatch(line)
	text := strings.TrimSpace(m[2])
	if i := strings.Index(text, "Process "); i > 0 && processLine.MatchString(text) {
		text = text[i:]
	}
	var dst *string
	switch m[1] {
	case "DETAIL", "Detail":
		dst = &e.Detail
	case "HINT", "Hint":
		dst = &e.Hint
		text = strings.TrimSuffix(text, ".") + "."
	case "CONTEXT", "Where", "Context":
		dst = &e.Context
	case "STATEMENT":
		dst = &e.Statement
	default:
		if !processLine.MatchString(text) {
			return false
		}
		dst = &e.Detail
	}
	if *dst == "" {
		e.set(dst, text)
	} else {
		e.appendLine(dst, text)
	}
	return true
}

// endDriver emits the open driver error.
func (rd *reader) endDriver() {
	if rd.drv != nil {
		e := rd.drv
		rd.drv = nil
		rd.emit(e)
	}
}

// escaped handles a deadlock detail quoted inside another program's log
// line (a JSON string, a %q): its lines are separated by \n escapes.
func (rd *reader) escaped(line string) {
	rd.closeAll()
	text := unescape(line)
	e := &Entry{Line: rd.lr.line, Severity: "ERROR", Message: "deadlock detected", Code: "40P01", Source: "driver"}
	rd.drv = e
	for l := range strings.SplitSeq(text, "\n") {
		if i := strings.Index(l, "Process "); i >= 0 {
			l = l[i:]
			// The quoted string ends where the escape ended.
			if j := strings.IndexByte(l, '"'); j >= 0 && !strings.Contains(l[:j], ": ") {
				l = l[:j]
			}
			rd.driverContinuation(l)
		}
	}
	rd.endDriver()
}

// unescape undoes the escapes of a quoted string inside a log line.
func unescape(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`).Replace(s)
}

// finish flushes what is still open at the end of the input; cut says the
// input ended in an error.
func (rd *reader) finish(cut bool) {
	rd.endCSV(true)
	rd.endTable()
	for _, e := range rd.open {
		e.Truncated = e.Truncated || cut
	}
	rd.closeAll()
	rd.stats.Lines = rd.lr.line
	rd.stats.CutLines = rd.lr.cut
}
