package explain

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/report"
)

// Program is what the analysis of the Go code found.
type Program struct {
	// Sites are the calls that send SQL.
	Sites []lockseq.Site
	// Edges are the lock-order edges: a lock held while another is
	// requested, with the code path of each.
	Edges []*lockgraph.Edge
	// Findings are the reports of the run, before suppressions and
	// baselines: a suppressed finding still explains a deadlock.
	Findings []Finding
	// Rel shows a position as the findings do (relative to the working
	// directory); nil keeps positions as they are.
	Rel func(string) string
	// Schema is the schema the analysis ran with (nil: none): a
	// statement's shape counts the locks it implies.
	Schema *lockmodel.Schema
}

// Finding is one finding of the analysis.
type Finding struct {
	Category string
	Posn     string
	Message  string
	// Cycle is the cycle the finding reports, when it reports one.
	Cycle *lockgraph.Cycle
}

// Status says how far a report is explained.
type Status string

// Statuses.
const (
	// Explained: a finding explains every process of the report.
	Explained Status = "explained"
	// Partly: some statements were found in the code, but no finding
	// explains the whole report.
	Partly Status = "partly"
	// Unexplained: no statement of the report was found in the code.
	Unexplained Status = "unexplained"
)

// Explanation connects one report to the code.
type Explanation struct {
	Report    *Report              `json:"report"`
	Status    Status               `json:"status"`
	Processes []ProcessExplanation `json:"processes"`
	Findings  []ExplainingFinding  `json:"findings,omitempty"`
	Why       []string             `json:"why,omitempty"`
}

// ProcessExplanation is what the code says about one process.
type ProcessExplanation struct {
	PID int `json:"pid"`
	// Lock is the lock it waits for in the model's words.
	Lock string `json:"lock,omitempty"`
	// Candidates are the call sites that run its statement, best first.
	Candidates []Candidate `json:"candidates,omitempty"`
	// MoreCandidates counts candidates left out of the list.
	MoreCandidates int `json:"moreCandidates,omitempty"`
	// Paths are the code paths that hold a lock while running the
	// statement at a candidate: the transaction's earlier locks.
	Paths []Path `json:"paths,omitempty"`
	// Problem says why the process could not be placed in the code.
	Problem string `json:"problem,omitempty"`
}

// Candidate is a call site that runs a logged statement.
type Candidate struct {
	Func  string `json:"func"`
	Pos   string `json:"pos"`
	SQL   string `json:"sql"`
	Match string `json:"match"`
	Via   string `json:"via,omitempty"`
	Tx    bool   `json:"tx"`
	// Caller is set when the statement runs on a handle the function's
	// callers pass (a DBTX): in a transaction where a caller passes one.
	Caller bool `json:"caller,omitempty"`
}

// Path is a code path that holds a lock while it runs a candidate.
type Path struct {
	Func    string `json:"func"`
	Holds   string `json:"holds"`
	HeldAt  string `json:"heldAt"`
	HeldSQL string `json:"heldSQL,omitempty"`
	Waits   string `json:"waits"`
	WaitsAt string `json:"waitsAt"`
}

// ExplainingFinding is a finding that explains a report, with its fix.
type ExplainingFinding struct {
	Category string `json:"category"`
	Posn     string `json:"posn"`
	Summary  string `json:"summary"`
	Fix      string `json:"fix,omitempty"`
	// Full is set when the finding accounts for every process.
	Full bool `json:"full"`
}

// Limits of what one explanation lists.
const (
	maxCandidates = 5
	maxPaths      = 6
)

// explainer holds the program's indexes.
type explainer struct {
	p  Program
	ix *index
	// byWanted are the edges by the position of their waiting request.
	byWanted map[string][]*lockgraph.Edge
	// funcsAt are the functions of the sites at each position as the
	// findings show it.
	funcsAt map[string][]string
	rel     func(string) string
}

// Explain explains every report of log against the program.
func Explain(log *Log, p Program) []*Explanation {
	x := &explainer{p: p, ix: newIndex(p.Sites, p.Schema), byWanted: map[string][]*lockgraph.Edge{}, funcsAt: map[string][]string{}, rel: p.Rel}
	if x.rel == nil {
		x.rel = func(s string) string { return s }
	}
	for _, e := range lockgraph.Dedupe(slices.Clone(p.Edges)) {
		if n := len(e.WantedPath); n > 0 {
			pos := e.WantedPath[n-1].Pos.String()
			x.byWanted[pos] = append(x.byWanted[pos], e)
		}
	}
	for _, s := range x.ix.sites {
		pos := x.rel(s.Pos)
		if !slices.Contains(x.funcsAt[pos], s.Func) {
			x.funcsAt[pos] = append(x.funcsAt[pos], s.Func)
		}
	}
	out := make([]*Explanation, 0, len(log.Reports))
	for _, r := range log.Reports {
		out = append(out, x.explain(r))
	}
	return out
}

// procMatch is a process with the sites its statement matched.
type procMatch struct {
	proc  *Process
	hits  []hit
	shape lockmodel.Shape
	err   error
}

func (x *explainer) explain(r *Report) *Explanation {
	ex := &Explanation{Report: r}
	ms := make([]procMatch, len(r.Processes))
	found := 0
	for i := range r.Processes {
		p := &r.Processes[i]
		ms[i].proc = p
		if p.Statement != "" {
			ms[i].hits, ms[i].shape, ms[i].err = x.ix.match(p.Statement)
			x.ix.rank(ms[i].hits, func(pos string) int {
				score := 0
				for _, e := range x.byWanted[pos] {
					switch {
					case verified(p.Waits, e.Wanted):
						return 2
					case x.compatible(p.Waits, e.Wanted):
						score = 1
					}
				}
				return score
			})
		}
		if len(ms[i].hits) > 0 {
			found++
		}
		ex.Processes = append(ex.Processes, x.process(ms[i]))
	}
	ex.Findings = x.findings(r, ms)
	full := slices.ContainsFunc(ex.Findings, func(f ExplainingFinding) bool { return f.Full })
	switch {
	case full && !r.Truncated:
		ex.Status = Explained
	case found > 0 || len(ex.Findings) > 0:
		ex.Status = Partly
	default:
		ex.Status = Unexplained
	}
	if ex.Status != Explained {
		ex.Why = x.why(r, ms, ex)
	}
	return ex
}

// process describes one process's place in the code.
func (x *explainer) process(m procMatch) ProcessExplanation {
	p := m.proc
	pe := ProcessExplanation{PID: p.PID}
	if p.Waits != nil {
		pe.Lock = p.Waits.Model()
	}
	for k, h := range m.hits {
		if k == maxCandidates {
			pe.MoreCandidates = len(m.hits) - k
			break
		}
		s := x.ix.sites[h.site]
		pe.Candidates = append(pe.Candidates, Candidate{Func: s.Func, Pos: x.rel(s.Pos), SQL: s.SQL, Match: h.match, Via: s.Via, Tx: s.Tx, Caller: s.Caller})
	}
	seen := map[string]bool{}
	for _, h := range m.hits {
		for _, e := range x.byWanted[x.ix.sites[h.site].Pos] {
			if !x.compatible(p.Waits, e.Wanted) || weakTableLock(e.Held) && (p.Waits == nil || p.Waits.Kind != lockmodel.Table) {
				continue
			}
			pa := x.path(e)
			k := pa.Func + "|" + pa.Holds + "|" + pa.WaitsAt
			if seen[k] || len(pe.Paths) == maxPaths {
				continue
			}
			seen[k] = true
			pe.Paths = append(pe.Paths, pa)
		}
	}
	pe.Problem = x.problem(m, pe)
	return pe
}

// weakTableLock reports whether l is the implicit table lock of plain DML
// (ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE), which makes only LOCK TABLE and
// DDL wait: it cannot hold up a row or advisory lock's waiter.
func weakTableLock(l lockgraph.Lock) bool {
	switch l.Mode {
	case lockmodel.AccessShare, lockmodel.RowShare, lockmodel.RowExclusive:
		return true
	}
	return false
}

// lockText describes a lock with positions shown as the findings show
// them (the class of an advisory key known only at run time names its
// site).
func (x *explainer) lockText(l lockgraph.Lock) string {
	if l.Class.Site != "" {
		l.Class.Site = x.rel(l.Class.Site)
	}
	return l.String()
}

func (x *explainer) path(e *lockgraph.Edge) Path {
	pa := Path{Func: e.Func, Holds: x.lockText(e.Held), Waits: x.lockText(e.Wanted)}
	if n := len(e.HeldPath); n > 0 {
		pa.HeldAt, pa.HeldSQL = x.rel(e.HeldPath[n-1].Pos.String()), e.HeldPath[n-1].SQL
	}
	if n := len(e.WantedPath); n > 0 {
		pa.WaitsAt = x.rel(e.WantedPath[n-1].Pos.String())
	}
	return pa
}

// compatible reports whether a logged wait can be the model's request
// want: the same kind of lock, on the same relation or key when the log
// names it.
func (x *explainer) compatible(l *Lock, want lockgraph.Lock) bool {
	if l == nil || l.Kind == 0 {
		return true
	}
	if want.Mode.Kind() != l.Kind {
		return false
	}
	c := l.Class()
	switch {
	case c == "":
		return true
	case l.Kind == lockmodel.Advisory:
		// A key the model knows only as an expression (hashtext('x')),
		// a parameter or not at all cannot be compared with the
		// server's number.
		return want.Class.Kind != lockgraph.AdvisoryKey || !numericKey.MatchString(want.Class.Name) || want.Class.Key().String() == c
	}
	return want.Class.String() == c
}

// numericKey is an advisory key of integer constants: "(42)", "(1, -2)".
var numericKey = regexp.MustCompile(`^\(-?\d+(?:, -?\d+)?\)$`)

// verified reports whether the log names the lock precisely enough (a
// relation's name, an advisory key's numbers) to compare it with want.
func verified(l *Lock, want lockgraph.Lock) bool {
	return l != nil && l.Class() != "" && want.Class.Key().String() == l.Class()
}

// problem says why a process could not be placed, or "" when it was.
func (x *explainer) problem(m procMatch, pe ProcessExplanation) string {
	p := m.proc
	switch {
	case p.Statement == "" && p.Waits == nil:
		return "the input gives neither its statement nor its lock (it holds a lock others wait for)"
	case p.Statement == "":
		return "the input does not give its statement (a driver's error carries only the waits: the server log has the statements)"
	case m.err != nil:
		return fmt.Sprintf("its statement does not parse (cut short?): %v", m.err)
	case len(m.hits) == 0:
		msg := "statement not found in the code"
		if n := len(x.ix.dynamic); n > 0 {
			s := x.ix.sites[x.ix.dynamic[0]]
			msg += fmt.Sprintf("; %d call site(s) send SQL built at run time, which may be it (e.g. %s in %s)", n, x.rel(s.Pos), s.Func)
		}
		return msg
	case p.Waits != nil && p.Waits.Kind == 0:
		return "it waits for " + p.Waits.Model()
	}
	if p.Waits != nil && len(m.shape.Locks) > 0 && !slices.ContainsFunc(m.shape.Locks, func(l lockmodel.Lock) bool { return l.Kind == p.Waits.Kind }) {
		return fmt.Sprintf("the lock model takes no %s lock for this statement, but the server made it wait for %s (%s)", p.Waits.Kind, p.Waits.Text, waitCause(p))
	}
	if len(pe.Paths) == 0 && p.Waits != nil {
		tx := slices.ContainsFunc(pe.Candidates, func(c Candidate) bool { return c.Tx || c.Caller })
		if !tx {
			return "pglockorder sees this statement run outside a transaction: no lock is held while it waits (the transaction, or the lock it held, is where pglockorder cannot see)"
		}
		return "no code path holds a lock while it runs this statement (the transaction's earlier locks are taken where pglockorder cannot see, or in a way it does not model)"
	}
	return ""
}

// waitCause describes what the server's CONTEXT says the wait was for.
func waitCause(p *Process) string {
	if p.Context != "" {
		return strings.SplitN(p.Context, "\n", 2)[0]
	}
	return "no CONTEXT logged"
}

// findings returns the findings that explain the report: those that
// account for every process, the best verified first, or else the best
// partial ones.
func (x *explainer) findings(r *Report, ms []procMatch) []ExplainingFinding {
	type scored struct {
		f     ExplainingFinding
		score int
	}
	var all []scored
	for _, f := range x.p.Findings {
		var (
			full, any bool
			score     int
		)
		if f.Cycle != nil {
			full, any, score = x.cycleMatches(r, ms, f.Cycle)
		} else if rowCategories[f.Category] {
			full, any = x.rowMatches(ms, f)
		}
		if !any {
			continue
		}
		all = append(all, scored{ExplainingFinding{Category: f.Category, Posn: f.Posn, Summary: firstLine(f.Message), Fix: fixOf(f.Message), Full: full}, score})
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		return cmp.Or(rankOf(a.f.Full)-rankOf(b.f.Full), b.score-a.score)
	})
	var out []ExplainingFinding
	for i, s := range all {
		// Only the best: the findings as good as the first, and at
		// most three partial ones when none is full.
		if i > 0 && (s.f.Full != all[0].f.Full || s.score < all[0].score) || !s.f.Full && i == 3 {
			break
		}
		out = append(out, s.f)
	}
	return out
}

// rowCategories are the findings about rows of one table locked in no
// defined order: two runs of the same code deadlock.
var rowCategories = map[string]bool{
	report.CategoryUnorderedRows: true,
	report.CategoryLoopOrder:     true,
	report.CategoryCallerOrder:   true,
	report.CategoryOrderMismatch: true,
}

// cycleMatches assigns the report's processes to the cycle's steps: a
// waiting process to a step that requests its lock at a site running its
// statement, a process that only holds to any site of the cycle. full
// says every process found a step of its own and the cycle has no more
// steps than the report has waits; any that at least one process did.
//
// score counts the processes whose lock the log names precisely and the
// cycle's step requests: the stronger evidence among several candidates.
// A deadlock the server detected is fully explained only by a cycle it can
// detect, a hang only by one it cannot (a wait through the application).
func (x *explainer) cycleMatches(r *Report, ms []procMatch, c *lockgraph.Cycle) (full, any bool, score int) {
	fits := make([][]int, len(ms)) // steps each process can be
	waiting := 0
	for i, m := range ms {
		if m.proc.waiting() || r.Kind == Deadlock {
			waiting++
		}
		for si, s := range c.Steps {
			if x.processFits(m, s, c) {
				fits[i] = append(fits[i], si)
			}
		}
		if len(fits[i]) > 0 {
			any = true
		}
	}
	if !any {
		return false, false, 0
	}
	used := make([]bool, len(c.Steps))
	var assign func(i int) bool
	assign = func(i int) bool {
		if i == len(ms) {
			return true
		}
		if r.Kind != Deadlock && ms[i].proc.Statement == "" && ms[i].proc.Waits == nil {
			// A holder the input names only by its pid.
			return assign(i + 1)
		}
		if len(fits[i]) == 0 {
			return false
		}
		for _, si := range fits[i] {
			if !ms[i].proc.waiting() && r.Kind != Deadlock {
				// A holder: any site of the cycle, shared.
				return assign(i + 1)
			}
			// Two transactions running the same path deadlock on a
			// lock upgrade: they share its one step.
			upgrade := c.Steps[si].IsUpgrade()
			if used[si] && !upgrade {
				continue
			}
			used[si] = !upgrade
			if assign(i + 1) {
				return true
			}
			used[si] = false
		}
		return false
	}
	full = assign(0)
	switch {
	case r.Kind == Deadlock && (waiting != steps(c) || c.Severity == lockgraph.CrossConnection):
		full = false
	case r.Kind == Hang && c.Severity != lockgraph.CrossConnection:
		full = false
	}
	for _, m := range ms {
		for _, s := range c.Steps {
			if verified(m.proc.Waits, s.Wanted) && x.processFits(m, s, c) {
				score++
				break
			}
		}
	}
	return full, any, score
}

// steps counts the processes a deadlock through c has: one per step, two
// for the one step of a lock upgrade (two runs of the same path).
func steps(c *lockgraph.Cycle) int {
	if len(c.Steps) == 1 && c.Steps[0].IsUpgrade() {
		return 2
	}
	return len(c.Steps)
}

// processFits reports whether a process can be step s of cycle c.
func (x *explainer) processFits(m procMatch, s *lockgraph.Edge, c *lockgraph.Cycle) bool {
	if len(m.hits) == 0 {
		return false
	}
	at := func(path []lockgraph.Frame) string {
		if n := len(path); n > 0 {
			return path[n-1].Pos.String()
		}
		return ""
	}
	for _, h := range m.hits {
		pos := x.ix.sites[h.site].Pos
		if !m.proc.waiting() {
			// Holds a lock: its last statement is any of the cycle's.
			for _, st := range c.Steps {
				if at(st.HeldPath) == pos || at(st.WantedPath) == pos {
					return true
				}
			}
			continue
		}
		if at(s.WantedPath) == pos && x.compatible(m.proc.Waits, s.Wanted) {
			return true
		}
	}
	return false
}

// rowMatches reports whether a finding about the rows of one table
// explains the report: every process runs its statement in a function
// that the finding points into.
func (x *explainer) rowMatches(ms []procMatch, f Finding) (full, any bool) {
	funcs := x.funcsAt[f.Posn]
	if len(funcs) == 0 {
		return false, false
	}
	full = true
	for _, m := range ms {
		ok := false
		for _, h := range m.hits {
			if slices.Contains(funcs, x.ix.sites[h.site].Func) {
				ok = true
				break
			}
		}
		if m.proc.Waits != nil && m.proc.Waits.Kind != 0 && m.proc.Waits.Kind != lockmodel.Row && m.proc.Waits.Kind != lockmodel.Advisory {
			ok = false
		}
		any = any || ok
		full = full && ok
	}
	return full, any
}

// why says why no finding explains the report.
func (x *explainer) why(r *Report, ms []procMatch, ex *Explanation) []string {
	var out []string
	if r.Truncated {
		out = append(out, "the report is incomplete (cut short, or its cycle does not close): some processes or statements are missing")
	}
	if r.Kind == Hang && len(ex.Findings) > 0 && !slices.ContainsFunc(ex.Findings, func(f ExplainingFinding) bool { return f.Category == report.CategoryCrossConn }) {
		out = append(out, "the findings that match are cycles PostgreSQL detects (they end in 40P01 after deadlock_timeout): a wait that only lock_timeout ended, or that never ended, passes through the application or waits for a transaction that stays open")
	}
	for i, pe := range ex.Processes {
		if pe.Problem != "" {
			out = append(out, fmt.Sprintf("process %d: %s", ms[i].proc.PID, pe.Problem))
		}
	}
	if len(out) == 0 {
		switch {
		case len(ex.Findings) > 0:
			out = append(out, "the findings above account for only some of its processes")
		default:
			out = append(out, "every statement was found, but no reported cycle or row-order finding joins them: a lock the model does not see (a foreign key without -schema, a unique index, a trigger), or a path pglockorder does not follow")
		}
	}
	return out
}

// firstLine is the first line of a finding's message, without its
// position.
func firstLine(msg string) string {
	line, _, _ := strings.Cut(msg, "\n")
	return line
}

// fixOf returns the fix a finding's message gives.
func fixOf(msg string) string {
	for l := range strings.SplitSeq(msg, "\n") {
		if fix, ok := strings.CutPrefix(strings.TrimSpace(l), "fix: "); ok {
			return fix
		}
	}
	return ""
}
