package lockseq

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// maxPath bounds the field paths followed from a parameter or result.
const maxPath = 2

// handleOf resolves the database handle that v denotes. path is the field
// path still to follow from v (outermost first).
func (fa *fnAnalysis) handleOf(v ssa.Value) Handle {
	h := fa.resolve(v, nil, 0)
	if k := fa.a.env.Rules.KindOf(v.Type()); k != sqlsite.NotHandle && (h.Kind == sqlsite.NotHandle || h.Kind == sqlsite.Maybe && k != sqlsite.Maybe) {
		h.Kind = k
	}
	return fa.normalise(h)
}

// normalise fills in the connection of a handle from its kind.
func (fa *fnAnalysis) normalise(h Handle) Handle {
	if h.Kind == sqlsite.Pool {
		h.Conn = fresh
	} else if h.Conn == "" {
		h.Conn = h.Ref
	}
	return h
}

func (fa *fnAnalysis) resolve(v ssa.Value, path []string, depth int) Handle {
	if depth > 12 {
		return fa.localHandle(v, path)
	}
	switch v := v.(type) {
	case *ssa.Const:
		if v.IsNil() {
			// A nil handle is no transaction and no connection of the
			// caller's: a callee handed one (a test driving the code
			// against a fake repository, a caller with nothing open)
			// runs what it runs elsewhere, and the caller holds none of
			// it from one call into the next.
			return Handle{Ref: fresh, Kind: sqlsite.Pool}
		}
	case *ssa.Parameter:
		for i, p := range fa.fn.Params {
			if p == v {
				return Handle{Ref: withPath(fmt.Sprintf("p%d", i), path), Kind: fa.a.kindAt(v.Type(), path)}
			}
		}
	case *ssa.FreeVar:
		for i, p := range fa.fn.FreeVars {
			if p == v {
				return Handle{Ref: withPath(fmt.Sprintf("p%d", len(fa.fn.Params)+i), path), Kind: fa.a.kindAt(v.Type(), path)}
			}
		}
	case *ssa.UnOp:
		if v.Op == token.MUL {
			switch x := v.X.(type) {
			case *ssa.FieldAddr:
				return fa.resolve(x.X, prepend([]string{fieldName(x.X.Type(), x.Field)}, path), depth+1)
			case *ssa.Global:
				return Handle{Ref: withPath("g:"+x.Pkg.Pkg.Path()+"."+x.Name(), path), Kind: fa.a.kindAt(v.Type(), path)}
			case *ssa.Alloc:
				if st := onlyStore(x, nil); st != nil {
					return fa.resolve(st.Val, path, depth+1)
				}
				// A struct built field by field, then copied
				// (r := Repo{db: tx}; r.Lock()): follow the field.
				return fa.resolve(x, path, depth+1)
			case *ssa.IndexAddr:
				// An element of a slice or array literal.
				if st := elementStore(x); st != nil {
					return fa.resolve(st.Val, path, depth+1)
				}
			default:
				// Through a pointer: *p names what p points to, and a
				// handle reached through it is the same one (a
				// parameter, a captured variable, **pgx.Tx).
				return fa.resolve(x, path, depth+1)
			}
		}
	case *ssa.Lookup:
		// m[k] of a map filled with constant keys in this function.
		if val := mapValue(v); val != nil {
			return fa.resolve(val, path, depth+1)
		}
	case *ssa.Field:
		return fa.resolve(v.X, prepend([]string{fieldName(v.X.Type(), v.Field)}, path), depth+1)
	case *ssa.MakeInterface:
		return fa.resolve(v.X, path, depth+1)
	case *ssa.ChangeInterface:
		return fa.resolve(v.X, path, depth+1)
	case *ssa.ChangeType:
		return fa.resolve(v.X, path, depth+1)
	case *ssa.TypeAssert:
		if !v.CommaOk {
			return fa.resolve(v.X, path, depth+1)
		}
	case *ssa.Alloc:
		// The cell of a variable captured by a closure: follow the
		// value stored into it.
		if st := onlyStore(v, nil); st != nil {
			return fa.resolve(st.Val, path, depth+1)
		}
		// &T{f: x}: follow the store to the field on the path. A
		// field set more than once (t.conn = db, then t.conn = tx when
		// there is a transaction) is what a φ of its values would be.
		if len(path) > 0 {
			if stores := fieldStores(v, path[0]); len(stores) == 1 {
				return fa.resolve(stores[0].Val, path[1:], depth+1)
			} else if len(stores) > 1 {
				vals := make([]ssa.Value, len(stores))
				for i, st := range stores {
					vals[i] = st.Val
				}
				if h, ok := fa.resolveAlternatives(vals, path[1:], depth); ok {
					return h
				}
			}
		}
	case *ssa.Extract:
		switch t := v.Tuple.(type) {
		case *ssa.Call:
			return fa.callResult(t, v.Index, path)
		case *ssa.TypeAssert:
			// db, ok := q.(pgx.Tx), also a type switch's case.
			if v.Index == 0 {
				return fa.resolve(t.X, path, depth+1)
			}
		}
	case *ssa.Call:
		if h, ok := fa.ctxCall(v, path, depth); ok { // a transaction kept in a context (ctxtx.go)
			return h
		}
		return fa.callResult(v, 0, path)
	case *ssa.Phi:
		if h, ok := fa.resolveAlternatives(v.Edges, path, depth); ok {
			return h
		}
	}
	return fa.localHandle(v, path)
}

// resolveAlternatives resolves the handle that one of vals stands for, as
// a φ of them (choosePhi): nil values, a branch with no handle, are left
// out.
func (fa *fnAnalysis) resolveAlternatives(vals []ssa.Value, path []string, depth int) (Handle, bool) {
	var alts []Handle
	for _, v := range vals {
		if c, ok := v.(*ssa.Const); ok && c.IsNil() {
			continue
		}
		alts = append(alts, fa.resolve(v, path, depth+1))
	}
	return choosePhi(alts)
}

// choosePhi picks the handle a φ-node stands for. When the branches agree,
// that handle. When they differ, typically "the caller's transaction, or the
// pool when we own none" (db := tx; if owns { db = pool }), the analysis
// cannot tell the branches apart; it takes the transactional alternative,
// whose locks are held and which shares the caller's connection, rather than
// inventing a wait across connections that only the other branch has.
//
// When that alternative is the caller's handle and the other is a pool
// (q := r.pool; if tx != nil { q = tx }), the handle is a transaction only
// if the caller's is one: it is the caller's handle, of kind Maybe, whose
// locks each caller holds or not as its own handle says (HoldCond). A
// caller that passes nil runs on the pool (see bindArg).
func choosePhi(alts []Handle) (Handle, bool) {
	if len(alts) == 0 {
		return Handle{}, false
	}
	same := true
	for _, h := range alts[1:] {
		if h.Ref != alts[0].Ref {
			same = false
		}
	}
	if same {
		return alts[0], true
	}
	for _, kind := range []sqlsite.HandleKind{sqlsite.Tx, sqlsite.Maybe, sqlsite.Conn} {
		for _, h := range alts {
			if h.Kind == kind && (escapes(h.Ref) || h.Ref.local()) {
				if _, _, param := h.Ref.param(); param && kind == sqlsite.Tx && orPool(alts) {
					h.Kind = sqlsite.Maybe
				}
				return h, true
			}
		}
	}
	return Handle{}, false
}

// callResult resolves result index of call c, at field path.
func (fa *fnAnalysis) callResult(c *ssa.Call, index int, path []string) Handle {
	op := fa.a.env.Rules.Classify(c.Common())
	if index == 0 && len(path) == 0 {
		switch op.Kind {
		case sqlsite.Begin:
			recv := fa.handleOf(op.Recv)
			if recv.Kind == sqlsite.Tx {
				// tx.Begin starts a savepoint in the same transaction.
				return recv
			}
			h := Handle{Ref: fa.localRef(c), Kind: sqlsite.Tx}
			if recv.Kind == sqlsite.Conn || recv.Kind == sqlsite.Maybe {
				h.Conn = recv.Conn
			} else {
				h.Conn = h.Ref
			}
			return h
		case sqlsite.Acquire:
			r := fa.localRef(c)
			return Handle{Ref: r, Kind: sqlsite.Conn, Conn: r}
		case sqlsite.Chain:
			return fa.handleOf(op.Recv) // an ORM builder bound to its handle
		}
	}
	if op.Kind != sqlsite.NoOp {
		return fa.localHandle(c, path)
	}
	if c.Call.IsInvoke() {
		if h, ok := fa.invokeResult(c, index, path); ok {
			return h // a Begin method of the program's own Conn interface
		}
		return fa.localHandle(c, path)
	}
	callee := c.Call.StaticCallee()
	if callee == nil {
		return fa.localHandle(c, path)
	}
	sum := fa.a.summaryOf(callee)
	if sum == nil {
		return fa.localHandle(c, path)
	}
	want := strings.Join(path, ".")
	for _, f := range sum.Returns {
		if f.Result == index && f.Path == want {
			bind := func(i int, path []string) (Handle, bool) {
				return fa.bindArg(c.Call.Args, nil, len(c.Call.Args), i, path)
			}
			h := fa.mapHandle(f.Handle, c, "", bind)
			if _, _, param := h.Ref.param(); f.OrPool && param && h.Kind == sqlsite.Tx {
				// The callee's "your transaction, or the pool"
				// given this function's own transaction: its
				// callers' nil is the pool still.
				h.Kind = sqlsite.Maybe
			}
			return h
		}
	}
	return fa.localHandle(c, path)
}

// binder resolves a callee's parameter i (at a field path) to a handle of
// the calling function, reporting false when it cannot.
type binder func(i int, path []string) (Handle, bool)

// mapHandle translates a handle named in a callee's terms into this
// function's terms at call site site.
// scope tells apart the callees applied at one site: "" for the called
// function, another string for each function value it invokes.
func (fa *fnAnalysis) mapHandle(h Handle, site ssa.Instruction, scope string, bind binder) Handle {
	ref, _ := fa.mapRef(h.Ref, h.Kind, site, scope, bind)
	// The connection of the callee's handle is the connection of the
	// caller's handle it is bound to: a transaction the caller began on a
	// dedicated connection runs on that connection.
	_, conn := fa.mapRef(h.Conn, h.Kind, site, scope, bind)
	out := Handle{Ref: ref.Ref, Kind: ref.Kind, Conn: conn.Conn}
	if out.Kind == sqlsite.Pool {
		out.Conn = fresh
	}
	return out
}

// mapRef maps one callee ref; it returns the caller's handle bound to it and
// that handle's connection, as a handle whose Conn is set.
func (fa *fnAnalysis) mapRef(r Ref, kind sqlsite.HandleKind, site ssa.Instruction, scope string, bind binder) (Handle, Handle) {
	same := func(r Ref) (Handle, Handle) {
		h := Handle{Ref: r, Kind: kind, Conn: r}
		return h, h
	}
	switch {
	case r == "" || r == fresh || strings.HasPrefix(string(r), "g:"):
		return same(r)
	case r.local():
		return same(Ref(fmt.Sprintf("C%d%s/%s", fa.instrID(site), scope, r)))
	}
	i, path, ok := r.param()
	if !ok {
		return same(r)
	}
	var fields []string
	if path != "" {
		fields = strings.Split(path, ".")
	}
	h, ok := bind(i, fields)
	if !ok {
		return same(fresh)
	}
	k := h.Kind
	if k == sqlsite.NotHandle || k == sqlsite.Maybe && kind != sqlsite.Maybe && kind != sqlsite.NotHandle {
		k = kind
	}
	if k == sqlsite.Pool {
		return Handle{Ref: fresh, Kind: k, Conn: fresh}, Handle{Ref: fresh, Kind: k, Conn: fresh}
	}
	conn := h.Conn
	if conn == "" {
		conn = h.Ref
	}
	return Handle{Ref: h.Ref, Kind: k, Conn: conn}, Handle{Ref: conn, Kind: k, Conn: conn}
}

// localHandle is a handle this function obtained in a way the analysis does
// not model (sql.Open, pgx.Connect, a call it cannot see into): its own
// identity, kind from its type.
func (fa *fnAnalysis) localHandle(v ssa.Value, path []string) Handle {
	r := fa.localRef(v)
	if len(path) > 0 {
		r = withPath(string(r), path)
	}
	return Handle{Ref: r, Kind: fa.a.kindAt(v.Type(), path)}
}

func (fa *fnAnalysis) localRef(v ssa.Value) Ref {
	if r, ok := fa.locals[v]; ok {
		return r
	}
	r := Ref(fmt.Sprintf("L%d", len(fa.locals)))
	fa.locals[v] = r
	return r
}

// instrID numbers call sites, for naming the handles a callee creates.
func (fa *fnAnalysis) instrID(instr ssa.Instruction) int {
	if id, ok := fa.sites[instr]; ok {
		return id
	}
	id := len(fa.sites)
	fa.sites[instr] = id
	fa.siteInstrs = append(fa.siteInstrs, instr)
	return id
}

// kindAt returns the handle kind of the value reached from a value of type t
// by following the field path.
func (a *Analysis) kindAt(t types.Type, path []string) sqlsite.HandleKind {
	for i, f := range path {
		if isContextType(t) && ctxPath(path[i:]) {
			// Whatever handle the context carries (a struct's
			// context too, see handleFields).
			return sqlsite.Maybe
		}
		t = fieldType(t, f)
		if t == nil {
			return sqlsite.NotHandle
		}
	}
	return a.env.Rules.KindOf(t)
}

// structOf returns the struct type of t, through pointers and names.
func structOf(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, _ := t.Underlying().(*types.Struct)
	return s
}

func fieldType(t types.Type, name string) types.Type {
	s := structOf(t)
	if s == nil {
		return nil
	}
	for f := range s.Fields() {
		if f.Name() == name {
			return f.Type()
		}
	}
	return nil
}

func fieldName(t types.Type, i int) string {
	s := structOf(t)
	if s == nil || i >= s.NumFields() {
		return fmt.Sprintf("#%d", i)
	}
	return s.Field(i).Name()
}

// handleFields lists the field paths (up to maxPath deep) of a value of type
// t that hold database handles.
func (a *Analysis) handleFields(t types.Type, depth int) [][]string {
	var out [][]string
	s := structOf(t)
	if s == nil || depth >= maxPath || a.env.Rules.KindOf(t) != sqlsite.NotHandle {
		// A handle is opaque: the driver's own fields are no business
		// of the analysis.
		return nil
	}
	for f := range s.Fields() {
		if a.env.Rules.KindOf(f.Type()) != sqlsite.NotHandle {
			out = append(out, []string{f.Name()})
			continue
		}
		if isContextType(f.Type()) {
			// A struct that keeps a context (an *http.Request) carries
			// the transaction the context carries.
			if depth+2 <= maxPath {
				out = append(out, []string{f.Name(), ctxTx})
			}
			continue
		}
		for _, sub := range a.handleFields(f.Type(), depth+1) {
			out = append(out, prepend([]string{f.Name()}, sub))
		}
	}
	return out
}

// handlePaths lists the paths at which a value of type t holds a handle:
// the value itself when it is one, else its handle fields.
func (a *Analysis) handlePaths(t types.Type) [][]string {
	if a.env.Rules.KindOf(t) != sqlsite.NotHandle {
		return [][]string{nil}
	}
	if isContextType(t) {
		return [][]string{{ctxTx}}
	}
	return a.handleFields(t, 0)
}

// elementStore returns the single store into the element of a slice or
// array literal that ia addresses with a constant index.
func elementStore(ia *ssa.IndexAddr) *ssa.Store {
	idx, ok := ia.Index.(*ssa.Const)
	if !ok {
		return nil
	}
	base := ia.X
	if sl, ok := base.(*ssa.Slice); ok {
		base = sl.X
	}
	alloc, ok := base.(*ssa.Alloc)
	if !ok {
		return nil
	}
	var found *ssa.Store
	for _, ref := range *alloc.Referrers() {
		other, ok := ref.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		c, ok := other.Index.(*ssa.Const)
		if !ok || c.Value == nil || idx.Value == nil || c.Value.ExactString() != idx.Value.ExactString() {
			continue
		}
		for _, r2 := range *other.Referrers() {
			if st, ok := r2.(*ssa.Store); ok && st.Addr == other {
				if found != nil {
					return nil
				}
				found = st
			}
		}
	}
	return found
}

// mapValue returns the value stored under the lookup's constant key when the
// function stores exactly one value under that key.
func mapValue(l *ssa.Lookup) ssa.Value {
	key, ok := l.Index.(*ssa.Const)
	if !ok || key.Value == nil {
		return nil
	}
	var found ssa.Value
	for _, ref := range *l.X.Referrers() {
		u, ok := ref.(*ssa.MapUpdate)
		if !ok || u.Map != l.X {
			continue
		}
		c, ok := u.Key.(*ssa.Const)
		if !ok || c.Value == nil || c.Value.ExactString() != key.Value.ExactString() {
			continue
		}
		if found != nil {
			return nil
		}
		found = u.Value
	}
	return found
}

// onlyStore returns the store into alloc (or into its field path[0]) when
// there is exactly one.
func onlyStore(alloc *ssa.Alloc, path []string) *ssa.Store {
	var found *ssa.Store
	for _, ref := range *alloc.Referrers() {
		var addr ssa.Value = alloc
		if len(path) > 0 {
			fa, ok := ref.(*ssa.FieldAddr)
			if !ok || fieldName(alloc.Type(), fa.Field) != path[0] {
				continue
			}
			addr = fa
			for _, r2 := range *fa.Referrers() {
				if st, ok := r2.(*ssa.Store); ok && st.Addr == addr {
					if found != nil {
						return nil
					}
					found = st
				}
			}
			continue
		}
		if st, ok := ref.(*ssa.Store); ok && st.Addr == addr {
			if found != nil {
				return nil
			}
			found = st
		}
	}
	return found
}

// fieldStores returns the stores into field of the struct alloc points to.
func fieldStores(alloc *ssa.Alloc, field string) []*ssa.Store {
	var out []*ssa.Store
	for _, ref := range *alloc.Referrers() {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok || fieldName(alloc.Type(), fa.Field) != field {
			continue
		}
		for _, r2 := range *fa.Referrers() {
			if st, ok := r2.(*ssa.Store); ok && st.Addr == fa {
				out = append(out, st)
			}
		}
	}
	return out
}

func withPath(root string, path []string) Ref {
	if len(path) == 0 {
		return Ref(root)
	}
	return Ref(root + "." + strings.Join(path, "."))
}

func prepend(head, tail []string) []string {
	out := make([]string, 0, len(head)+len(tail))
	return append(append(out, head...), tail...)
}
