package sqlsite

import (
	"go/types"
	"strings"
)

// pkgScany is georgysavva/scany (v1 and v2): pgxscan and sqlscan scan rows
// into structs, and their Get and Select run the query they are given on
// the handle they are given (a pgx or database/sql Querier):
// pgxscan.Get(ctx, tx, &dst, query, args...), also as methods of an API
// value (api.Select(ctx, db, &dst, query, args...)).
const pkgScany = "github.com/georgysavva/scany"

// isScanyPackage reports whether path is one of scany's query packages.
func isScanyPackage(path string) bool {
	rest, ok := strings.CutPrefix(path, pkgScany+"/")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "v2/")
	return rest == "pgxscan" || rest == "sqlscan"
}

// classifyScany models Get and Select: the handle is argument 1, the query
// argument 3 and its parameters follow.
func (rs *Rules) classifyScany(op Op, fn *types.Func) (Op, bool) {
	if fn.Name() != "Get" && fn.Name() != "Select" {
		return op, false
	}
	params := fn.Signature().Params()
	if params.Len() != 5 || len(op.Args) != 5 || !isContext(params.At(0).Type()) || !isString(params.At(3).Type()) {
		return op, false
	}
	op.Kind = Query
	op.Recv = op.Args[1]
	op.RecvKind = rs.KindOf(op.Recv.Type())
	if op.RecvKind == NotHandle {
		op.RecvKind = Maybe
	}
	op.Query, op.Params = 3, 4
	op.Via = "scany " + fn.Pkg().Name() + "." + fn.Name()
	return op, true
}
