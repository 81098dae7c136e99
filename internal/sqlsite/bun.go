package sqlsite

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgBun is uptrace/bun. Its handles (DB, Tx, Conn, and the IDB interface
// over them) start query builders (NewSelect, NewUpdate, ...) whose chain
// ends in Scan or Exec, which runs the statement.
const pkgBun = "github.com/uptrace/bun"

// bunStart maps the methods that start a builder to the statement it
// builds.
var bunStart = map[string]string{
	"NewSelect": "SELECT", "NewUpdate": "UPDATE", "NewDelete": "DELETE",
	"NewInsert": "INSERT", "NewRaw": "RAW",
}

// bunRun lists the builder methods that run the statement.
var bunRun = map[string]bool{
	"Scan": true, "Exec": true, "Count": true, "ScanAndCount": true, "Exists": true, "Rows": true,
}

// classifyBun models a method of a bun handle or query builder; recv is
// the receiver (of a static or an interface call).
func (rs *Rules) classifyBun(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	if recv == nil {
		return op, false
	}
	name := fn.Name()
	if rs.KindOf(recv.Type()) != NotHandle {
		op.Recv, op.RecvKind = recv, rs.KindOf(recv.Type())
		switch {
		case bunStart[name] != "":
			op.Kind = Chain
			return op, true
		case name == "BeginTx":
			op.Kind = Begin
			return op, true
		case name == "RunInTx":
			// RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error)
			op.Kind, op.Func, op.FuncTx = BeginFunc, 2, 1
			return op, true
		}
		return op, false
	}
	if !bunRun[name] {
		if sameTypeLink(pkgBun)(fn) {
			op.Kind, op.Recv = Chain, recv
			return op, true
		}
		return op, false
	}
	root, links := chainOf(recv, sameTypeLink(pkgBun))
	start, ok := root.(*ssa.Call)
	if !ok {
		return op, false
	}
	var handle ssa.Value
	var startName string
	var startArgs []ssa.Value
	if start.Call.IsInvoke() {
		handle, startName, startArgs = start.Call.Value, start.Call.Method.Name(), start.Call.Args
	} else if f := staticFunc(&start.Call); f != nil && f.Pkg() != nil && f.Pkg().Path() == pkgBun && len(start.Call.Args) > 0 {
		handle, startName, startArgs = start.Call.Args[0], f.Name(), start.Call.Args[1:]
	}
	verb := bunStart[startName]
	if handle == nil || verb == "" {
		return op, false
	}
	st := statement{verb: verb}
	if verb == "RAW" && len(startArgs) > 0 {
		st.raw, _ = constString(startArgs[0])
	}
	for _, l := range links {
		switch l.name {
		case "Model":
			if st.table == "" {
				st.table = bunTable(l.args[0])
			}
		case "Table":
			if ts := constStrings(l.args[0]); len(ts) > 0 {
				st.table = firstWord(ts[0])
			}
		case "ModelTableExpr", "TableExpr":
			if s, ok := constString(l.args[0]); ok {
				st.table = firstWord(s)
			}
		case "Where":
			if s, ok := constString(l.args[0]); ok {
				st.where = append(st.where, s)
			} else {
				st.unknown = true
			}
		case "WherePK":
			st.where = append(st.where, "id = ?") // the usual primary key
		case "WhereOr", "WhereGroup", "WhereDeleted", "WhereAllWithDeleted":
			st.unknown = true
		case "Order":
			st.order = append(st.order, constStrings(l.args[0])...)
		case "OrderExpr":
			if s, ok := constString(l.args[0]); ok {
				st.order = append(st.order, s)
			}
		case "Limit":
			st.limit1 = isConstOne(l.args[0])
		case "Set":
			if s, ok := constString(l.args[0]); ok && st.set == "" {
				st.set = firstWord(strings.SplitN(s, "=", 2)[0])
			}
		case "For":
			if s, ok := constString(l.args[0]); ok {
				st.suffix = append(st.suffix, "FOR "+s)
			}
		}
	}
	if (verb == "UPDATE" || verb == "DELETE") && len(st.where) == 0 {
		// bun refuses an UPDATE or DELETE without a WHERE: the chain has
		// one it built at run time.
		st.unknown = true
	}
	return rs.builtQuery(op, handle, &st, "bun "+strings.ToLower(verb)+" query's "+name)
}

// bunTable names the table of a bun model: the table: option of its
// bun.BaseModel tag, or its type name in plural snake_case.
func bunTable(model ssa.Value) string {
	t := modelType(model)
	if t == nil {
		return ""
	}
	if tag, ok := structTag(t, pkgBun, "BaseModel", "bun"); ok {
		for opt := range strings.SplitSeq(tag, ",") {
			if v, ok := strings.CutPrefix(opt, "table:"); ok {
				return v
			}
		}
	}
	return defaultTableName(t.Obj().Name())
}
