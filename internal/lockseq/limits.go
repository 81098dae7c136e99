package lockseq

import (
	"fmt"
	"go/token"
	"slices"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// maxHeld bounds the locks one program point tracks as held. Each request
// draws an edge from every held lock, and each edge lists its gates (the
// locks held around it), so a transaction of n locks costs n² edges and n³
// gate checks: 5,000 statements in one string took minutes and gigabytes.
// Real transactions hold a few dozen distinct locks, but many copies of
// them reached along several paths (each copy is an event: merging them
// changes the gates of the edges, and so the results). On hatchet, one
// function reaches 128. Past the bound, the function's further locks are neither tracked as held nor
// ordered after the held ones, and the function is named in a warning.
const maxHeld = 128

// heldLimit is the warning for maxHeld.
var heldLimit = fmt.Sprintf("holds %d locks at once; the locks it takes after that are not analysed", maxHeld)

// maxLentPairs bounds the pairs a function passes to its callers to draw
// with their gates (Pair.Lent): a helper on its caller's transaction passes
// its own and those of the helpers it calls, so a web of helpers that call
// each other passes the square of its locks. Past the bound, the function
// draws its further pairs itself, and they stand whatever its callers hold
// first.
const maxLentPairs = maxEvents

// lentLimit is the warning for maxLentPairs.
var lentLimit = fmt.Sprintf("lends %d lock pairs to its callers; its further pairs are reported without their callers' gates", maxLentPairs)

// Limit is a bound the analysis of a function reached: its results are
// those of a smaller program, and the driver says so.
type Limit struct {
	Pos  token.Pos
	Func string
	// What says which bound was reached and what was left out.
	What string
}

// String renders the limit for a warning.
func (l Limit) String() string { return l.Func + ": " + l.What }

// hold marks event ev as held in st, unless st holds maxHeld events
// already.
func (fa *fnAnalysis) hold(st *state, ev int, surely bool) {
	if !st.held[ev] && len(st.held) >= maxHeld {
		fa.limit(heldLimit)
		return
	}
	st.hold(ev, surely)
}

// holdUnit adds event ev to the events held until the end of the current
// unit (several statements sent at once), unless maxHeld are already.
func (fa *fnAnalysis) holdUnit(unitHeld []int, ev int) []int {
	if len(unitHeld) >= maxHeld {
		fa.limit(heldLimit)
		return unitHeld
	}
	return append(unitHeld, ev)
}

// limit records, once per function and kind, that a bound was reached.
func (fa *fnAnalysis) limit(what string) {
	if fa.limited[what] {
		return
	}
	if fa.limited == nil {
		fa.limited = map[string]bool{}
	}
	fa.limited[what] = true
	fa.a.Limits = append(fa.a.Limits, Limit{Pos: fa.fn.Pos(), Func: fa.name, What: what})
}

// eventSig is what a caller sees of an event: two events of one summary
// with the same signature differ only in the path to them and the statement
// they come from, and the caller draws the same edges from either.
type eventSig struct {
	lock   lockgraph.Lock
	tx     Ref
	txKind sqlsite.HandleKind
	conn   Ref
	hold   Hold
	rows   RowInfo
	// scoped tells apart events with different keyed gates (Scoped).
	scoped string
}

func sigOf(e *Event) eventSig {
	sig := eventSig{lock: e.Lock, tx: e.Tx, txKind: e.TxKind, conn: e.Conn, hold: e.Hold, rows: e.Rows}
	if len(e.Scoped) > 0 {
		sig.scoped = fmt.Sprint(e.Scoped)
	}
	return sig
}

// compactAbove is the number of events above which a summary is compacted.
// Below it the summary keeps every path to each lock, for the reports.
const compactAbove = 256

// compact merges the events of a large summary that a caller cannot tell
// apart (the first one, the earliest requested, stands for the others) and
// keeps at most maxEvents of them. Without it a summary holds one event per
// path to each lock, and functions calling each other inside a transaction
// double their callers' events at each level: 500 such functions took
// minutes.
func (fa *fnAnalysis) compact() {
	s := fa.sum
	if len(s.Events) <= compactAbove {
		return
	}
	idx := make([]int, len(s.Events)) // old index -> new index, or -1
	first := make(map[eventSig]int, len(s.Events))
	var events []Event
	dropped := 0
	for i := range s.Events {
		sig := sigOf(&s.Events[i])
		if j, ok := first[sig]; ok {
			idx[i] = j
			continue
		}
		if len(events) >= maxEvents {
			idx[i] = -1
			dropped++
			continue
		}
		first[sig] = len(events)
		idx[i] = len(events)
		events = append(events, s.Events[i])
	}
	if len(events) == len(s.Events) {
		return
	}
	if dropped > 0 {
		fa.limit(fmt.Sprintf("takes more than %d distinct locks; its callers see the first %d (%d left out)", maxEvents, maxEvents, dropped))
	}
	s.Events = events
	// A lent pair whose two rows merged with others names no two rows a
	// caller could be seen to hold: the callee's own finding stands.
	s.LentPairs = nil
	for i := range s.Events {
		// The events they name moved too.
		e := &s.Events[i]
		e.Guards = remap(e.Guards, idx)
		var scoped []Scope
		for _, sc := range e.Scoped {
			if sc.Event < len(idx) && idx[sc.Event] >= 0 {
				scoped = append(scoped, Scope{Event: idx[sc.Event], Cols: sc.Cols})
			}
		}
		e.Scoped = scoped
	}
	s.Exit = remap(s.Exit, idx)
	s.Surely = remap(s.Surely, idx)
	pairs := s.Pairs[:0]
	seen := map[[2]int]bool{}
	for _, p := range s.Pairs {
		p.Held, p.Wanted = idx[p.Held], idx[p.Wanted]
		if p.Held < 0 || p.Wanted < 0 || p.Held == p.Wanted || seen[[2]int{p.Held, p.Wanted}] {
			continue
		}
		seen[[2]int{p.Held, p.Wanted}] = true
		p.Gates = remap(p.Gates, idx)
		var keyed []KeyedRef
		for _, k := range p.Keyed {
			if k.Event < len(idx) && idx[k.Event] >= 0 {
				keyed = append(keyed, KeyedRef{Event: idx[k.Event], Gate: k.Gate})
			}
		}
		p.Keyed = keyed
		pairs = append(pairs, p)
	}
	s.Pairs = pairs
	for i := range s.Sinks {
		k := &s.Sinks[i]
		k.Held, k.Surely = remap(k.Held, idx), remap(k.Surely, idx)
		k.At = newCount(idx, k.At)
	}
	for i := range s.Invokes {
		v := &s.Invokes[i]
		v.Held, v.Surely = remap(v.Held, idx), remap(v.Surely, idx)
	}
}

// remap maps event indices through idx, dropping those left out, sorted and
// without duplicates.
func remap(in, idx []int) []int {
	if in == nil {
		return nil
	}
	out := make([]int, 0, len(in))
	for _, i := range in {
		if i < len(idx) && idx[i] >= 0 {
			out = append(out, idx[i])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// newCount is the number of kept events among the first n old ones: where
// a position "after n events" falls in the compacted summary.
func newCount(idx []int, n int) int {
	c := 0
	for i := 0; i < n && i < len(idx); i++ {
		if idx[i] >= c {
			c = idx[i] + 1
		}
	}
	return c
}
