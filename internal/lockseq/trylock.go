package lockseq

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// A request that never waits holds its lock only where it succeeded.
// pg_try_advisory_* returns whether it got the lock; NOWAIT raises an error
// when it did not. The analysis follows the Go code that looks at the
// answer, as it follows `if err != nil` after any statement (failedCall):
//
//	var ok bool
//	err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(1)").Scan(&ok)
//	if err != nil || !ok { return }   // below: surely held
//
// and `SELECT ... WHERE pg_try_advisory_xact_lock(id)`, whose row comes
// back only where the lock was granted (Scan's error is ErrNoRows
// otherwise). A try-lock is held only "maybe" after its statement, and
// surely (a gate) on the branch where its result was true. A function that
// returns such a result (sqlc's `TryLock(ctx, key) (bool, error)`) says so
// in its summary (Summary.Tries), and its callers test it the same way.

// tryRef says how the function learns whether a non-waiting request was
// granted.
type tryRef struct {
	// site is the call that ran the statement, or, for a callee's event,
	// the call of the callee.
	site ssa.Instruction
	// use and column say where the statement puts a try-lock's result;
	// for a callee's event, column is the callee's result that tells.
	use    lockmodel.TryUse
	column int
	callee bool
	wait   lockmodel.WaitPolicy
}

// TryResult says that the function's boolean result Result is true exactly
// where its event Event (a try-lock) was granted.
type TryResult struct {
	Event, Result int
}

// tryEdit is what a branch learns: events not held there, and events
// surely held there.
type tryEdit struct {
	drop, surely []int
}

// tryBranch returns, for the two successors of block b, what its final
// test says about the function's non-waiting requests.
func (fa *fnAnalysis) tryBranch(b *ssa.BasicBlock, failing int, failed ssa.Instruction) [2]tryEdit {
	var out [2]tryEdit
	if len(fa.tries) == 0 || len(b.Succs) != 2 {
		return out
	}
	if scan, ok := failed.(*ssa.Call); ok {
		// Scan failed: the statement failed (NOWAIT's 55P03), or no row
		// came back (a WHERE try-lock that was not granted).
		if site := scanSource(scan); site != nil {
			for ev, r := range fa.tries {
				if r.site != site || r.callee {
					continue
				}
				if r.wait == lockmodel.NoWait || r.wait == lockmodel.Try {
					out[failing].drop = append(out[failing].drop, ev)
				}
				if r.use == lockmodel.TryFilter {
					out[1-failing].surely = append(out[1-failing].surely, ev)
				}
			}
		}
		return out
	}
	cond, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	if !ok {
		return out
	}
	src, neg, ok := boolSource(cond.Cond)
	if !ok {
		return out
	}
	granted, refused := 0, 1
	if neg {
		granted, refused = 1, 0
	}
	for ev, r := range fa.tries {
		if r.site != src.site || r.callee != src.callee || r.column != src.column {
			continue
		}
		if !r.callee && r.use != lockmodel.TryColumn {
			continue
		}
		out[granted].surely = append(out[granted].surely, ev)
		out[refused].drop = append(out[refused].drop, ev)
	}
	return out
}

// edited returns st with e applied, or st itself when e is empty.
func (fa *fnAnalysis) edited(st *state, e tryEdit) *state {
	if len(e.drop) == 0 && len(e.surely) == 0 {
		return st
	}
	out := st.clone()
	for _, ev := range e.drop {
		out.drop(ev)
	}
	for _, ev := range e.surely {
		if out.held[ev] {
			out.must[ev] = true
		}
	}
	return out
}

// boolSource traces a boolean value back to where it comes from: a column
// a Scan wrote (src.site the query, src.column the column), or a result of
// a called function (src.callee). neg is set when the value is negated.
func boolSource(v ssa.Value) (src tryRef, neg bool, ok bool) {
	for {
		switch x := v.(type) {
		case *ssa.UnOp:
			switch x.Op {
			case token.NOT:
				neg = !neg
				v = x.X
				continue
			case token.MUL:
				site, col := scanDest(x.X)
				if site == nil {
					return src, false, false
				}
				return tryRef{site: site, column: col}, neg, true
			}
			return src, false, false
		case *ssa.Extract:
			call, isCall := x.Tuple.(*ssa.Call)
			if !isCall || call.Call.StaticCallee() == nil {
				return src, false, false
			}
			return tryRef{site: call, column: x.Index, callee: true}, neg, true
		case *ssa.Call:
			if x.Call.StaticCallee() == nil {
				return src, false, false
			}
			return tryRef{site: x, column: 0, callee: true}, neg, true
		}
		return src, false, false
	}
}

// scanDest finds the Scan that writes into the variable at addr, and
// returns the query call whose row it reads and the column: `var ok bool;
// row.Scan(&ok)` is, in SSA, &ok boxed into element i of the variadic
// slice passed to Scan.
func scanDest(addr ssa.Value) (ssa.Instruction, int) {
	if _, ok := addr.(*ssa.Alloc); !ok {
		return nil, 0
	}
	return scanInto(addr)
}

// scanInto is scanDest for any address: a variable's, or a field's
// (row.Scan(&s.ID)).
func scanInto(addr ssa.Value) (ssa.Instruction, int) {
	for _, r := range *addr.Referrers() {
		mi, ok := r.(*ssa.MakeInterface)
		if !ok {
			continue
		}
		for _, r2 := range *mi.Referrers() {
			store, ok := r2.(*ssa.Store)
			if !ok || store.Val != mi {
				continue
			}
			ia, ok := store.Addr.(*ssa.IndexAddr)
			if !ok {
				continue
			}
			idx, ok := ia.Index.(*ssa.Const)
			if !ok || idx.Value == nil || idx.Value.Kind() != constant.Int {
				continue
			}
			col, _ := constant.Int64Val(idx.Value)
			for _, r3 := range *ia.X.Referrers() {
				sl, ok := r3.(*ssa.Slice)
				if !ok {
					continue
				}
				for _, r4 := range *sl.Referrers() {
					if call, ok := r4.(*ssa.Call); ok {
						if site := scanSource(call); site != nil {
							return site, int(col)
						}
					}
				}
			}
		}
	}
	return nil, 0
}

// scanSource returns the query call whose row a call of a Scan method
// reads (pgx.Row.Scan, (*sql.Row).Scan, through an interface or not).
func scanSource(call *ssa.Call) ssa.Instruction {
	c := call.Common()
	var recv ssa.Value
	switch {
	case c.IsInvoke():
		if c.Method.Name() != "Scan" {
			return nil
		}
		recv = c.Value
	default:
		f := c.StaticCallee()
		if f == nil || f.Name() != "Scan" || f.Signature.Recv() == nil || len(c.Args) == 0 {
			return nil
		}
		recv = c.Args[0]
	}
	if x, ok := stripConversions(recv).(*ssa.Call); ok {
		return x
	}
	return nil
}

// tryResults finds the function's boolean results that say whether one of
// its try-locks was granted: every return passes the lock's result or the
// constant false.
func (fa *fnAnalysis) tryResults() []TryResult {
	if len(fa.tries) == 0 {
		return nil
	}
	results := fa.fn.Signature.Results()
	var out []TryResult
	for r := range results.Len() {
		if !types.Identical(results.At(r).Type().Underlying(), types.Typ[types.Bool]) {
			continue
		}
		var (
			src  tryRef
			seen bool
			bad  bool
		)
		for _, b := range fa.fn.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok || r >= len(ret.Results) {
				continue
			}
			v := ret.Results[r]
			if c, ok := v.(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Bool && !constant.BoolVal(c.Value) {
				continue
			}
			s, neg, ok := boolSource(v)
			if !ok || neg || seen && s != src {
				bad = true
				break
			}
			src, seen = s, true
		}
		if bad || !seen {
			continue
		}
		for _, ev := range sortedKeys(fa.tryEvents()) {
			t := fa.tries[ev]
			if t.site == src.site && t.callee == src.callee && t.column == src.column && (t.callee || t.use == lockmodel.TryColumn) {
				out = append(out, TryResult{Event: ev, Result: r})
			}
		}
	}
	return out
}

// tryEvents is the set of events with a tryRef.
func (fa *fnAnalysis) tryEvents() map[int]bool {
	out := make(map[int]bool, len(fa.tries))
	for ev := range fa.tries {
		out[ev] = true
	}
	return out
}
