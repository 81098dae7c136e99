package sqlsite

import (
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// beego's ORM runs raw SQL through o.Raw(sql, args...), a RawSeter whose
// finisher (Exec, QueryRow, QueryRows, Values, ...) sends it. In v2
// (github.com/beego/beego/v2/client/orm) an Ormer is the pool, a TxOrmer a
// transaction that Begin, BeginWithCtx, ... return and Commit or Rollback
// end, and DoTx(func(ctx, txOrm) error) and its variants run a callback in
// one; a QueryExecutor (or DQL) parameter may be either. In v1
// (github.com/astaxie/beego/orm) an Ormer begins, commits and rolls back a
// transaction in place (they return only an error), so those are modelled
// as the BEGIN, COMMIT and ROLLBACK statements they send, as for xorm's
// Session.
const (
	pkgBeego   = "github.com/beego/beego/v2/client/orm"
	pkgBeegoV1 = "github.com/astaxie/beego/orm"
)

// beegoFinish are the RawSeter methods that send the statement.
var beegoFinish = map[string]bool{
	"Exec": true, "QueryRow": true, "QueryRows": true,
	"Values": true, "ValuesList": true, "ValuesFlat": true,
	"RowsToMap": true, "RowsToStruct": true,
}

// beegoKind is the handle kind of a beego ORM type.
func beegoKind(pkg, name string) HandleKind {
	if pkg == pkgBeegoV1 {
		if name == "Ormer" {
			// A transaction only once Begin ran on it: a
			// parameter may be the caller's transaction.
			return Maybe
		}
		return NotHandle
	}
	switch name {
	case "Ormer":
		return Pool
	case "TxOrmer":
		return Tx
	case "QueryExecutor", "DQL", "DML":
		return Maybe
	}
	return NotHandle
}

// isBeegoLink accepts RawSeter.SetArgs, which returns the statement to
// run with other arguments.
func isBeegoLink(fn *types.Func) bool {
	return fn.Pkg() != nil && (fn.Pkg().Path() == pkgBeego || fn.Pkg().Path() == pkgBeegoV1) && fn.Name() == "SetArgs"
}

// classifyBeego models a call of a beego ORM method.
func (rs *Rules) classifyBeego(op Op, fn *types.Func, recv ssa.Value) (Op, bool) {
	if recv == nil {
		return op, false
	}
	name := fn.Name()
	if beegoFinish[name] {
		return rs.beegoRaw(op, recv, name)
	}
	op.Recv, op.RecvKind = recv, rs.KindOf(recv.Type())
	if op.RecvKind == NotHandle {
		return op, false
	}
	sig := fn.Signature()
	if fn.Pkg().Path() == pkgBeegoV1 {
		text := map[string]string{"Begin": "BEGIN", "BeginTx": "BEGIN", "Commit": "COMMIT", "Rollback": "ROLLBACK"}[name]
		if text == "" {
			return op, false
		}
		op.Kind, op.Query, op.Params = Query, len(op.Args), -1
		op.Args = append(append([]ssa.Value(nil), op.Args...), ssa.NewConst(constant.MakeString(text), types.Typ[types.String]))
		return op, true
	}
	switch {
	case strings.HasPrefix(name, "Begin") && sig.Results().Len() > 0 && rs.KindOf(sig.Results().At(0).Type()) == Tx:
		op.Kind = Begin
	case name == "Commit":
		op.Kind = Commit
	case name == "Rollback", name == "RollbackUnlessCommit":
		op.Kind = Rollback
	case strings.HasPrefix(name, "DoTx") && len(op.Args) > 0:
		cb, ok := sig.Params().At(sig.Params().Len() - 1).Type().Underlying().(*types.Signature)
		if !ok {
			return op, false
		}
		op.Kind, op.Func, op.FuncTx = BeginFunc, len(op.Args)-1, rs.callbackTxParam(cb)
	default:
		return op, false
	}
	return op, true
}

// beegoRaw models a RawSeter finisher: the statement is the text of the
// Raw (or RawWithCtx) call its receiver chain starts from, run on that
// call's receiver, with the Raw call's arguments (or, after SetArgs,
// unknown ones).
func (rs *Rules) beegoRaw(op Op, recv ssa.Value, finisher string) (Op, bool) {
	// The RawSeter methods are interface methods: the chain is followed
	// here, through the calls of SetArgs on the statement Raw returned.
	setArgs := false
	raw, ok := recv.(*ssa.Call)
	for range maxChain {
		if !ok || !raw.Call.IsInvoke() || !isBeegoLink(raw.Call.Method) {
			break
		}
		setArgs = true
		raw, ok = raw.Call.Value.(*ssa.Call)
	}
	if !ok || !raw.Call.IsInvoke() {
		return op, false
	}
	m := raw.Call.Method
	if m.Pkg() == nil || m.Pkg().Path() != pkgBeego && m.Pkg().Path() != pkgBeegoV1 {
		return op, false
	}
	q := 0
	switch m.Name() {
	case "Raw":
	case "RawWithCtx":
		q = 1
	default:
		return op, false
	}
	if q >= len(raw.Call.Args) {
		return op, false
	}
	op.Kind = Query
	op.Recv, op.RecvKind = raw.Call.Value, rs.KindOf(raw.Call.Value.Type())
	if op.RecvKind == NotHandle {
		return op, false
	}
	op.Args = raw.Call.Args
	op.Query, op.Params = q, q+1
	if setArgs {
		op.Params = -1 // other arguments than Raw's
	}
	op.Via = "(orm.RawSeter)." + finisher
	return op, true
}
