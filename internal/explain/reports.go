package explain

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of a report.
type Kind string

// The kinds of report.
const (
	// Deadlock is a "deadlock detected" error: PostgreSQL found a
	// wait-for cycle and cancelled one of its processes.
	Deadlock Kind = "deadlock"
	// Hang is a lock wait that ended only with lock_timeout, or that
	// was still waiting when the log ends: a cycle the server cannot see
	// (through the application) or a very long transaction.
	Hang Kind = "hang"
	// Blocked is a process a blocked/blocking query showed waiting.
	Blocked Kind = "blocked"
)

// Report is one deadlock or hang found in the input.
type Report struct {
	Kind Kind `json:"kind"`
	// Line is the input line where the report starts; Time its time
	// stamp, when logged.
	Line int    `json:"line"`
	Time string `json:"time,omitempty"`
	// Processes are the processes of the cycle (or of the wait), in the
	// order the log names them.
	Processes []Process `json:"processes"`
	// Truncated is set when the report was cut short: its cycle does not
	// close, or the input ended inside it.
	Truncated bool `json:"truncated,omitempty"`
	// Notes are further facts the log gives ("process 18205 kept
	// waiting until lock_timeout after the deadlock").
	Notes []string `json:"notes,omitempty"`
	// Source is the format it was read from.
	Source string `json:"source"`
}

// Process is one process of a report.
type Process struct {
	PID int `json:"pid"`
	// Statement is the statement it was running, as logged; empty when
	// the input does not say (a driver's error carries only the
	// waits).
	Statement string `json:"statement,omitempty"`
	// Waits is the lock it waits for; nil for a process that only holds
	// locks others wait for.
	Waits *Lock `json:"waits,omitempty"`
	// BlockedBy are the processes it waits for.
	BlockedBy []int `json:"blockedBy,omitempty"`
	// Context is the CONTEXT logged with its wait.
	Context string `json:"context,omitempty"`
	// Victim marks the process PostgreSQL cancelled to break the cycle.
	Victim bool `json:"victim,omitempty"`
}

// waiting reports whether the process waits for a lock (rather than only
// holding one others wait for).
func (p *Process) waiting() bool { return p.Waits != nil || len(p.BlockedBy) > 0 }

// Log is what was read from the input.
type Log struct {
	Reports []*Report
	// Dropped counts reports beyond the limit, not kept.
	Dropped int
	Stats   Stats
}

// maxReports bounds the reports kept from one input; the rest are counted.
const maxReports = 1000

// maxPending bounds the lock waits kept while waiting for their end.
const maxPending = 4096

var (
	waitsLine   = regexp.MustCompile(`^Process (\d+) waits for (.+?); blocked by process (\d+)\.?$`)
	stmtLine    = regexp.MustCompile(`^Process (\d+): (.*)$`)
	lockWaitMsg = regexp.MustCompile(`^process (\d+) (still waiting for|acquired|detected deadlock while waiting for|avoided deadlock for) (.+?) (?:after|by rearranging queue order after) ([\d.]+) ms`)
	holdersText = regexp.MustCompile(`Process(?:es)? holding the lock: ([\d, ]+)\.(?: Wait queue: ([\d, ]*)\.)?`)
)

// pendingWait is a log_lock_waits "still waiting" entry whose end has not
// been read yet.
type pendingWait struct {
	entry   *Entry
	lock    Lock
	holders []int
	after   string
}

// assembler turns entries and rows into reports.
type assembler struct {
	log     *Log
	pending map[int]*pendingWait
	order   []int // pids of pending, oldest first
	// inDeadlock maps a pid to the last deadlock report it was part of.
	inDeadlock map[int]*Report
	blocked    map[int]*Report // psql reports by the pids they hold
}

// Read reads a server log, a driver's error text or a blocked/blocking
// query's output from r and returns its deadlocks and hangs. Only an
// error reading r is returned; input with nothing to explain gives a Log
// without reports, whose Stats say what was read.
func Read(r io.Reader) (*Log, error) {
	a := &assembler{log: &Log{}, pending: map[int]*pendingWait{}, inDeadlock: map[int]*Report{}, blocked: map[int]*Report{}}
	stats, err := scan(r, a)
	a.finish()
	a.log.Stats = stats
	return a.log, err
}

func (a *assembler) add(r *Report) {
	if n := len(a.log.Reports); n > 0 && r.Kind == Deadlock {
		last := a.log.Reports[n-1]
		switch {
		case last.Kind == Deadlock && signature(last) == signature(r) && len(r.Processes) > 0:
			// The same error logged twice by the application (its text,
			// then the struct): one deadlock.
			return
		case last.Kind == Deadlock && len(last.Processes) == 0 && len(r.Processes) > 0:
			// An error's text without its detail, then the detail.
			a.log.Reports[n-1] = r
			return
		}
	}
	if len(a.log.Reports) >= maxReports {
		a.log.Dropped++
		return
	}
	a.log.Reports = append(a.log.Reports, r)
}

func (a *assembler) entry(e *Entry) {
	switch {
	case e.Code == "40P01" || strings.HasPrefix(e.Message, "deadlock detected"):
		// The plain-text log adds " at character N" to an error of a
		// statement with a position: a lock taken while the statement
		// is parsed (an INSERT's RowExclusiveLock on its table).
		a.deadlock(e)
	case strings.HasPrefix(e.Message, "canceling statement due to lock timeout"):
		a.lockTimeout(e)
	default:
		if m := lockWaitMsg.FindStringSubmatch(e.Message); m != nil {
			a.lockWait(e, m)
		}
	}
}

// deadlock reads a "deadlock detected" entry.
func (a *assembler) deadlock(e *Entry) {
	r := &Report{Kind: Deadlock, Line: e.Line, Time: e.timeOf(), Truncated: e.Truncated, Source: e.Source}
	byPID := map[int]int{} // index in r.Processes
	lines := strings.Split(e.Detail, "\n")
	for _, l := range lines {
		if m := waitsLine.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			pid, _ := strconv.Atoi(m[1])
			by, _ := strconv.Atoi(m[3])
			if _, ok := byPID[pid]; ok {
				continue
			}
			lk := ParseLock(m[2], "")
			byPID[pid] = len(r.Processes)
			r.Processes = append(r.Processes, Process{PID: pid, Waits: &lk, BlockedBy: []int{by}})
		}
	}
	last := -1 // the process whose statement a line continues
	for _, l := range lines {
		switch m := stmtLine.FindStringSubmatch(strings.TrimSpace(l)); {
		case waitsLine.MatchString(strings.TrimSpace(l)):
			last = -1
		case m != nil:
			pid, _ := strconv.Atoi(m[1])
			i, ok := byPID[pid]
			if !ok {
				last = -1
				continue
			}
			last = i
			r.Processes[i].Statement = m[2]
		case last >= 0:
			// A statement with line breaks.
			r.Processes[last].Statement += "\n" + l
		}
	}
	victim := e.PID
	if victim == 0 && len(r.Processes) > 0 {
		// A driver's error has no pid, but the server starts the
		// DETAIL with the process that detected the deadlock: the one
		// that gets the error.
		victim = r.Processes[0].PID
	}
	for i := range r.Processes {
		p := &r.Processes[i]
		if p.PID == victim && victim != 0 {
			p.Victim, p.Context = true, e.Context
			if p.Statement == "" {
				p.Statement = e.Statement
			}
			if p.Waits != nil {
				lk := ParseLock(p.Waits.Text, e.Context)
				p.Waits = &lk
			}
		}
	}
	if len(r.Processes) == 0 {
		// No DETAIL (a driver error printed without it): the statement
		// the application ran, when logged, is all there is.
		r.Truncated = true
		if e.Statement != "" || e.PID != 0 {
			r.Processes = append(r.Processes, Process{PID: e.PID, Statement: e.Statement, Context: e.Context, Victim: true})
		}
	}
	// The cycle must close: every blocker is a process of the report.
	for _, p := range r.Processes {
		for _, b := range p.BlockedBy {
			if _, ok := byPID[b]; !ok {
				r.Truncated = true
			}
		}
	}
	// Their log_lock_waits entries were this deadlock's waits.
	for _, p := range r.Processes {
		a.dropPending(p.PID)
	}
	a.add(r)
	if len(a.log.Reports) > 0 && a.log.Reports[len(a.log.Reports)-1] == r {
		for _, p := range r.Processes {
			a.inDeadlock[p.PID] = r
		}
	}
}

// signature identifies a deadlock by its processes and their waits.
func signature(r *Report) string {
	var b strings.Builder
	for _, p := range r.Processes {
		fmt.Fprintf(&b, "%d %v %v|", p.PID, p.Waits != nil && p.Waits.Text != "", p.BlockedBy)
		if p.Waits != nil {
			b.WriteString(p.Waits.Text)
		}
	}
	return b.String()
}

// lockWait reads a log_lock_waits entry.
func (a *assembler) lockWait(e *Entry, m []string) {
	pid, _ := strconv.Atoi(m[1])
	switch m[2] {
	case "still waiting for":
		w := &pendingWait{entry: e, lock: ParseLock(m[3], e.Context), after: m[4]}
		if h := holdersText.FindStringSubmatch(e.Detail); h != nil {
			for f := range strings.FieldsFuncSeq(h[1], func(r rune) bool { return r == ',' || r == ' ' }) {
				if n, err := strconv.Atoi(f); err == nil {
					w.holders = append(w.holders, n)
				}
			}
		}
		if _, ok := a.pending[pid]; !ok {
			a.order = append(a.order, pid)
		}
		a.pending[pid] = w
		if len(a.order) > maxPending {
			a.dropPending(a.order[0])
		}
	case "acquired", "detected deadlock while waiting for", "avoided deadlock for":
		// Contention that ended, or a deadlock reported on its own.
		a.dropPending(pid)
	}
}

func (a *assembler) dropPending(pid int) {
	delete(a.pending, pid)
	if i := slices.Index(a.order, pid); i >= 0 {
		a.order = slices.Delete(a.order, i, i+1)
	}
}

// lockTimeout reads a "canceling statement due to lock timeout" error: the
// end of a wait that the deadlock detector did not break.
func (a *assembler) lockTimeout(e *Entry) {
	w := a.pending[e.PID]
	a.dropPending(e.PID)
	if d := a.inDeadlock[e.PID]; d != nil && e.PID != 0 && w != nil {
		// A survivor of a deadlock kept waiting: a session advisory
		// lock outlived the victim's ROLLBACK.
		d.Notes = append(d.Notes, fmt.Sprintf("process %d kept waiting for %s after the deadlock, until lock_timeout (line %d): a session-level lock survived the victim's rollback", e.PID, w.lock.Text, e.Line))
		return
	}
	a.add(a.hang(e.PID, e, w, "ended by lock_timeout"))
}

// hang builds the report of a wait that did not end with a deadlock error.
func (a *assembler) hang(pid int, e *Entry, w *pendingWait, how string) *Report {
	src := e.Source
	r := &Report{Kind: Hang, Line: e.Line, Time: e.timeOf(), Source: src}
	p := Process{PID: pid, Statement: e.Statement, Context: e.Context}
	if w != nil {
		lk := w.lock
		p.Waits, p.BlockedBy = &lk, w.holders
		if p.Statement == "" {
			p.Statement = w.entry.Statement
		}
		r.Line, r.Time = w.entry.Line, w.entry.timeOf()
		r.Notes = append(r.Notes, fmt.Sprintf("waited %s ms at line %d, %s", w.after, w.entry.Line, how))
	} else {
		// Without log_lock_waits the lock is not named; the CONTEXT
		// of a row wait names its relation.
		lk := ParseLock("", e.Context)
		lk.Text = "a lock the log does not name"
		if lk.Relation != "" {
			lk.Text, lk.Kind, lk.Object = "a row lock on "+lk.Relation, rowKind, "tuple"
		}
		p.Waits = &lk
		r.Notes = append(r.Notes, how)
	}
	r.Processes = append(r.Processes, p)
	for _, h := range p.BlockedBy {
		r.Processes = append(r.Processes, Process{PID: h})
	}
	return r
}

// row reads a row of a blocked/blocking query: processes blocked by the
// same processes form one report.
func (a *assembler) row(b *BlockRow) {
	var r *Report
	for _, h := range b.BlockedBy {
		if r = a.blocked[h]; r != nil {
			break
		}
	}
	if r == nil {
		r = &Report{Kind: Blocked, Line: b.Line, Source: b.Source, Truncated: b.Incomplete}
		a.add(r)
	}
	var lk *Lock
	if b.Mode != "" || b.LockType != "" || b.Relation != "" {
		l := Lock{Text: strings.TrimSpace(b.Mode + " " + b.LockType), PGMode: b.Mode, Object: b.LockType, Relation: b.Relation}
		switch b.LockType {
		case "relation":
			l.Kind, l.Mode = tableKind, tableModes[b.Mode]
		case "transactionid", "tuple":
			l.Kind = rowKind
		case "advisory":
			l.Kind = advisoryKind
		}
		lk = &l
	}
	r.Processes = mergeProcess(r.Processes, Process{PID: b.PID, Statement: b.Statement, Waits: lk, BlockedBy: b.BlockedBy})
	for i, h := range b.BlockedBy {
		holder := Process{PID: h}
		if i == 0 {
			holder.Statement = b.Blocking
		}
		r.Processes = mergeProcess(r.Processes, holder)
		a.blocked[h] = r
	}
	a.blocked[b.PID] = r
	r.Truncated = r.Truncated || b.Incomplete
}

// mergeProcess adds p to ps, or fills in what ps's entry for the same pid
// lacks.
func mergeProcess(ps []Process, p Process) []Process {
	for i := range ps {
		if ps[i].PID != p.PID {
			continue
		}
		if ps[i].Statement == "" {
			ps[i].Statement = p.Statement
		}
		if ps[i].Waits == nil {
			ps[i].Waits, ps[i].BlockedBy = p.Waits, p.BlockedBy
		}
		return ps
	}
	return append(ps, p)
}

// finish turns the waits still pending at the end of the input into
// reports: nothing says that they ever ended.
func (a *assembler) finish() {
	for _, pid := range a.order {
		w := a.pending[pid]
		if d := a.inDeadlock[pid]; d != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("process %d was still waiting for %s after the deadlock where the input ends (line %d)", pid, w.lock.Text, w.entry.Line))
			continue
		}
		a.add(a.hang(pid, w.entry, w, "still waiting where the input ends"))
	}
	a.pending, a.order = nil, nil
}
