package sqlsite

import (
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgSqlx is jmoiron/sqlx: database/sql with struct scanning. Its DB, Tx
// and Conn embed database/sql's, so their Exec, Query, Commit and Rollback
// are database/sql's methods, promoted; this file adds its own methods.
const pkgSqlx = "github.com/jmoiron/sqlx"

// sqlxQuery gives, for each sqlx method or function that runs a query, the
// index of the query text among its arguments (receiver excluded) and of
// the first query parameter (-1 for a named query's struct or map).
var sqlxQuery = map[string][2]int{
	"Get": {1, 2}, "Select": {1, 2},
	"GetContext": {2, 3}, "SelectContext": {2, 3},
	"MustExec": {0, 1}, "MustExecContext": {1, 2},
	"Queryx": {0, 1}, "QueryRowx": {0, 1},
	"QueryxContext": {1, 2}, "QueryRowxContext": {1, 2},
	"NamedExec": {0, -1}, "NamedExecContext": {1, -1},
	"NamedQuery": {0, -1}, "NamedQueryContext": {1, -1},
}

// sqlxLikeIndex returns the index of the query parameter of a method named
// and shaped like one of sqlx's (GetContext(ctx, dest, query, args...)),
// or -1: an interface with such a method stands for an sqlx handle.
func sqlxLikeIndex(m *types.Func) int {
	q, ok := sqlxQuery[m.Name()]
	params := m.Signature().Params()
	if !ok || q[0] >= params.Len() || !isString(params.At(q[0]).Type()) {
		return -1
	}
	switch m.Name() {
	case "Get", "Select", "GetContext", "SelectContext":
		// Get(dest any, query string): the query follows a destination,
		// and a cache's Get(ctx, key string) is no query.
		if dest := params.At(q[0] - 1).Type(); !types.IsInterface(dest) || isContext(dest) {
			return -1
		}
	}
	return q[0]
}

// classifySqlxLike models a call through an interface of a method shaped
// like sqlx's (a repository's own DB interface that *sqlx.DB and *sqlx.Tx
// satisfy).
func (rs *Rules) classifySqlxLike(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	if recv == nil || rs.KindOf(recv.Type()) != Maybe {
		return op, false
	}
	if _, isIface := recv.Type().Underlying().(*types.Interface); !isIface {
		return op, false
	}
	i := sqlxLikeIndex(fn)
	if i < 0 {
		return op, false
	}
	op.Kind, op.Recv, op.RecvKind = Query, recv, Maybe
	op.Query, op.Params = i, sqlxQuery[fn.Name()][1]
	return op, true
}

// classifySqlx models the methods sqlx adds to its handles.
func (rs *Rules) classifySqlx(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	name := fn.Name()
	if recv == nil {
		return rs.classifySqlxFunc(op, name)
	}
	op.Recv, op.RecvKind = recv, rs.KindOf(recv.Type())
	if op.RecvKind == NotHandle {
		return op, false
	}
	if q, ok := sqlxQuery[name]; ok {
		op.Kind, op.Query, op.Params = Query, q[0], q[1]
		return sqlxNamed(op, name), true
	}
	switch name {
	case "Beginx", "BeginTxx", "MustBegin", "MustBeginTx":
		op.Kind = Begin
		return op, true
	}
	return op, false
}

// classifySqlxFunc models sqlx's package-level functions, which take the
// handle (a Queryer, Execer or Ext) as an argument: sqlx.Get(db, &v, q).
func (rs *Rules) classifySqlxFunc(op Op, name string) (Op, bool) {
	h := 0
	if len(name) > 7 && name[len(name)-7:] == "Context" {
		h = 1 // the context comes first
	}
	q, ok := sqlxQuery[name]
	if !ok || h >= len(op.Args) {
		return op, false
	}
	op.Recv = op.Args[h]
	op.RecvKind = rs.KindOf(op.Recv.Type())
	if op.RecvKind == NotHandle {
		op.RecvKind = Maybe
	}
	// The function's arguments are the method's with the handle
	// inserted after the context.
	shift := func(i int) int {
		if i < 0 {
			return i
		}
		return i + 1
	}
	op.Kind, op.Query, op.Params = Query, shift(q[0]), shift(q[1])
	return sqlxNamed(op, name), true
}

// sqlxNamed binds the :name placeholders of a named query (NamedExec and
// NamedQuery) to the values of its argument, where that is a map or struct
// literal: the statement's keys, as sqlx binds them (a struct field by its
// db tag, else its lower-cased name, sqlx's default mapper).
func sqlxNamed(op Op, name string) Op {
	if !strings.HasPrefix(name, "Named") || op.Query < 0 || op.Query+1 >= len(op.Args) {
		return op
	}
	arg := op.Args[op.Query+1]
	values := map[string]ssa.Value{}
	for _, e := range mapEntries(arg) {
		values[e.key] = stripInterface(e.value)
	}
	if len(values) == 0 {
		values = structLiteral(arg)
	}
	if len(values) == 0 {
		return op
	}
	return bindNamed(op, ':', values)
}

// structLiteral returns the fields set by a struct composite literal (also
// its address, or passed as an interface), by their sqlx names.
func structLiteral(v ssa.Value) map[string]ssa.Value {
	v = stripConversions(v)
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		v = u.X
	}
	alloc, ok := v.(*ssa.Alloc)
	if !ok {
		return nil
	}
	st := structOfType(alloc.Type())
	if st == nil {
		return nil
	}
	out := map[string]ssa.Value{}
	for _, ref := range *alloc.Referrers() {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok || fa.X != alloc || fa.Field >= st.NumFields() {
			continue
		}
		for _, r2 := range *fa.Referrers() {
			if store, ok := r2.(*ssa.Store); ok && store.Addr == fa {
				f := st.Field(fa.Field)
				key := strings.ToLower(f.Name())
				if tag, ok := reflect.StructTag(st.Tag(fa.Field)).Lookup("db"); ok {
					if n, _, _ := strings.Cut(tag, ","); n != "" && n != "-" {
						key = n
					}
				}
				out[key] = store.Val
			}
		}
	}
	return out
}

// sqlxPassThrough reports whether a call to fn returns its query argument
// rewritten only in its bind markers (Rebind, In), and which of the call's
// arguments (a method's receiver first) that is.
func sqlxPassThrough(fn *types.Func) (int, bool) {
	if fn.Pkg() == nil || fn.Pkg().Path() != pkgSqlx {
		return 0, false
	}
	switch fn.Name() {
	case "Rebind":
		return 1, true // sqlx.Rebind(bindType, query), db.Rebind(query)
	case "In":
		return 0, true
	}
	return 0, false
}
