package lockseq

import (
	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// Site is a call that sends SQL to the server, as the analysis saw it: the
// index that `pglockorder -explain` searches for the statements of a
// server log. Every call that runs SQL is a site, whether or not its
// statement takes a lock that orders anything.
type Site struct {
	// Func is the function the call is in, named as in paths
	// ("billing.InvoiceAccount").
	Func string
	// Pos is the call's position, "file:line:column".
	Pos string
	// SQL is the statement text with $n placeholders; empty when the
	// text is built at run time (Dynamic).
	SQL string
	// Dynamic marks a call some of whose text is built at run time: a
	// logged statement that no other site runs may come from it.
	Dynamic bool
	// Via names the library call that ran a statement it built (GORM,
	// bun, ...) or the helper whose SQL parameter received the text.
	Via string
	// Tx is set when the statement runs in a transaction (it holds its
	// locks until the end of it).
	Tx bool
	// Locks is set when the statement requests a lock that can order
	// anything: a row lock, an advisory lock, or a table lock that
	// conflicts with the ROW EXCLUSIVE of plain DML (LOCK TABLE, DDL).
	// The implicit table locks of SELECT, INSERT, UPDATE and DELETE alone
	// do not make a lock site (see analyzer.Ordered).
	Locks bool
	// Caller is set when the statement runs on a handle the function's
	// callers pass (an interface such as sqlc's DBTX, the handle a
	// context carries): in a transaction where a caller passes one, so
	// neither Tx nor autocommit.
	Caller bool
}

// addSite records a SQL site once (the fixpoint visits a site many
// times).
func (fa *fnAnalysis) addSite(site ssa.Instruction, text string, h Handle, dynamic, tx, locks bool) {
	s := Site{Func: fa.name, Pos: fa.position(site.Pos()), Dynamic: dynamic, Via: fa.via, Tx: tx, Locks: locks,
		Caller: !tx && h.Kind == sqlsite.Maybe && escapes(h.Ref)}
	if !dynamic {
		s.SQL = lockmodel.Dollar(text)
	}
	if fa.a.siteSeen == nil {
		fa.a.siteSeen = map[Site]bool{}
	}
	if fa.a.siteSeen[s] {
		return
	}
	fa.a.siteSeen[s] = true
	fa.a.Sites = append(fa.a.Sites, s)
}

// takesLocks reports whether a statement's effects request a lock that can
// order anything (Site.Locks).
func takesLocks(effects []lockmodel.Effect) bool {
	for _, e := range effects {
		if e.Kind != lockmodel.Acquire {
			continue
		}
		if e.Lock.Kind != lockmodel.Table || lockmodel.ModesConflict(e.Lock.Mode, lockmodel.RowExclusive) {
			return true
		}
	}
	return false
}
