// Package sqlsite recognises the calls through which Go code runs SQL and
// resolves the query text they run.
//
// It models the database APIs pglockorder understands (database/sql, pgx v4
// and v5 with pgxpool, and any interface whose Exec/Query/QueryRow methods
// take the query as a string, such as sqlc's DBTX) as a small vocabulary of
// operations: run a query, begin a transaction, commit or roll it back,
// acquire or release a connection, queue and send a batch, and run a callback
// inside a transaction. Everything downstream works on that vocabulary, never
// on driver names.
package sqlsite

import (
	"go/constant"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// HandleKind is what a database handle is, as far as locks are concerned.
type HandleKind uint8

// Handle kinds.
const (
	// NotHandle is a value that is no database handle.
	NotHandle HandleKind = iota
	// Pool runs each statement on some pooled connection in autocommit
	// mode (*sql.DB, *pgxpool.Pool): it holds no lock after a statement.
	Pool
	// Conn is one dedicated connection (*sql.Conn, *pgx.Conn,
	// *pgxpool.Conn): autocommit unless a transaction is begun on it, and
	// the owner of session-level advisory locks.
	Conn
	// Tx is a transaction (*sql.Tx, pgx.Tx, *pgxpool.Tx): it holds its
	// locks until Commit or Rollback.
	Tx
	// Maybe is an interface that any of the above may implement (sqlc's
	// DBTX, a hand-written Querier): only the caller knows which.
	Maybe
)

func (k HandleKind) String() string {
	switch k {
	case Pool:
		return "pool"
	case Conn:
		return "connection"
	case Tx:
		return "transaction"
	case Maybe:
		return "handle"
	}
	return "none"
}

// OpKind is the kind of database operation a call performs.
type OpKind uint8

// Operations.
const (
	// NoOp is a call that is not a database operation.
	NoOp OpKind = iota
	// Query runs the SQL text in argument Op.Query on the receiver.
	Query
	// Begin starts a transaction on the receiver and returns it as
	// result 0.
	Begin
	// Commit ends the receiver transaction.
	Commit
	// Rollback ends the receiver transaction.
	Rollback
	// Acquire takes a dedicated connection from the receiver pool and
	// returns it as result 0.
	Acquire
	// Release gives the receiver connection back (Close on a *sql.Conn,
	// Release on a *pgxpool.Conn, Close on a *pgx.Conn): its session
	// advisory locks end.
	Release
	// Queue adds the SQL text in argument Op.Query to the receiver batch.
	Queue
	// SendBatch runs the batch in argument Op.Batch on the receiver.
	SendBatch
	// Prepare prepares the SQL text in argument Op.Query on the receiver
	// and returns a statement as result 0.
	Prepare
	// StmtRun runs the receiver prepared statement.
	StmtRun
	// BindStmt returns the prepared statement in argument Op.Query bound
	// to the receiver transaction (sql.Tx.Stmt).
	BindStmt
	// BeginFunc begins a transaction on argument Op.DB, calls the function
	// in argument Op.Func with it, and commits.
	BeginFunc
	// Chain returns, as result 0, a value bound to the receiver's handle:
	// a query builder or session of an ORM (db.Model(&job),
	// db.NewSelect()). Statements it runs later run on that handle.
	Chain
)

// Op is one recognised database operation at a call site.
type Op struct {
	Kind OpKind
	// Recv is the value the operation applies to (the receiver of a
	// method, or the db argument of pgx.BeginFunc); nil if none.
	Recv ssa.Value
	// RecvKind is the handle kind of Recv's static type.
	RecvKind HandleKind
	// Query is the index in Args of the query text (Query, Queue,
	// Prepare) or the prepared statement (BindStmt); -1 if none.
	Query int
	// Params is the index in Args of the first query parameter; the
	// parameters follow it, packed in a slice when the method is
	// variadic. -1 if none.
	Params int
	// Batch is the index in Args of the batch (SendBatch).
	Batch int
	// Func is the index in Args of the callback (BeginFunc).
	Func int
	// FuncTx is the index of the callback's parameter that receives the
	// transaction (BeginFunc): 0, or 1 for bun's func(ctx, tx).
	FuncTx int
	// Via names the library call that runs a statement an ORM or query
	// builder built, for the report's witness ("(*gorm.DB).First").
	Via string
	// Keys are the Go values bound to the $1, $2 ... of a statement an
	// ORM built (the arguments of its conditions), when all are known.
	Keys []ssa.Value
	// Pooled is set for a Release that gives the connection back to a
	// pool (pgxpool.Conn.Release, sql.Conn.Close): the session goes on,
	// and its session advisory locks with it.
	Pooled bool
	// Args are the call's arguments without the receiver.
	Args []ssa.Value
	// CtxTx marks a user-declared sink (-sinks) on an interface method,
	// called through the interface or on an implementation, that runs its
	// SQL in the transaction its context argument carries, unless its
	// receiver is itself a transaction, a connection or a pool: a
	// declared runner hands its callback the transaction only through a
	// context (InTx(ctx, func(ctx) error)), so a store behind an
	// interface finds it there.
	CtxTx bool
}

const (
	pkgSQL    = "database/sql"
	pkgPgx5   = "github.com/jackc/pgx/v5"
	pkgPgx4   = "github.com/jackc/pgx/v4"
	pkgPool5  = "github.com/jackc/pgx/v5/pgxpool"
	pkgPool4  = "github.com/jackc/pgx/v4/pgxpool"
	pkgSQLMod = "database/sql/driver"
)

// queryMethods are the method names that run a query given as a string.
var queryMethods = map[string]bool{
	"Exec": true, "ExecContext": true,
	"Query": true, "QueryContext": true,
	"QueryRow": true, "QueryRowContext": true,
}

// KindOf returns the handle kind of a value of type t.
func (rs *Rules) KindOf(t types.Type) HandleKind {
	if t == nil {
		return NotHandle
	}
	if pkg, name, ok := namedPath(t); ok {
		switch pkg {
		case pkgSQL:
			if k := sqlKind(name); k != NotHandle {
				return k
			}
		case pkgPgx5, pkgPgx4:
			switch name {
			case "Conn":
				return Conn
			case "Tx":
				return Tx
			}
		case pkgPool5, pkgPool4:
			switch name {
			case "Pool":
				return Pool
			case "Conn":
				return Conn
			case "Tx":
				return Tx
			}
		}
	}
	if k := rs.libraryKind(t); k != NotHandle {
		return k
	}
	if iface, ok := t.Underlying().(*types.Interface); ok && isQuerier(iface) {
		return Maybe
	}
	return NotHandle
}

// isQuerier reports whether an interface has a method that runs a query
// given as a string, which makes it a stand-in for a database handle.
func isQuerier(iface *types.Interface) bool {
	for m := range iface.Methods() {
		if queryMethods[m.Name()] && queryIndex(m.Signature()) >= 0 || sqlxLikeIndex(m) >= 0 {
			return true
		}
	}
	return false
}

// namedPath returns the package path and name of t's named type, looking
// through one pointer.
func namedPath(t types.Type) (pkg, name string, ok bool) {
	if p, isPtr := types.Unalias(t).(*types.Pointer); isPtr {
		t = p.Elem()
	}
	n, isNamed := types.Unalias(t).(*types.Named)
	if !isNamed || n.Obj().Pkg() == nil {
		return "", "", false
	}
	return n.Obj().Pkg().Path(), n.Obj().Name(), true
}

// queryIndex returns the index of a signature's query parameter: the first
// parameter, or the second when the first is a context.Context; -1 when that
// parameter is not a string.
func queryIndex(sig *types.Signature) int {
	params := sig.Params()
	i := 0
	if params.Len() > 0 && isContext(params.At(0).Type()) {
		i = 1
	}
	if i < params.Len() && isString(params.At(i).Type()) {
		return i
	}
	return -1
}

func isContext(t types.Type) bool {
	pkg, name, ok := namedPath(t)
	return ok && pkg == "context" && name == "Context"
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// Classify returns the database operation that call performs, or an Op of
// kind NoOp.
func (rs *Rules) Classify(call *ssa.CallCommon) Op {
	op := Op{Query: -1, Params: -1, Batch: -1, Func: -1}
	var (
		recv ssa.Value
		fn   *types.Func
		args []ssa.Value
	)
	switch {
	case call.IsInvoke():
		recv, fn, args = call.Value, call.Method, call.Args
	default:
		callee := call.StaticCallee()
		if callee == nil {
			return op
		}
		obj, ok := callee.Object().(*types.Func)
		if !ok {
			return op
		}
		fn = obj
		args = call.Args
		if obj.Signature().Recv() != nil && len(args) > 0 {
			recv, args = args[0], args[1:]
		}
	}
	if fn == nil || fn.Pkg() == nil {
		return op
	}
	op.Args = args
	sig := fn.Signature()
	if lop, ok := rs.classifyUser(op, fn, recv, call); ok {
		return lop
	}
	if lop, ok := rs.classifyLibrary(op, fn, recv, call); ok {
		return lop
	}
	recv = rs.unwrapEmbedded(recv)
	if recv == nil {
		return rs.classifyFunc(op, fn)
	}
	op.Recv = recv
	op.RecvKind = rs.KindOf(recv.Type())
	name := fn.Name()
	pkg := fn.Pkg().Path()
	if pkg == pkgPgx5 || pkg == pkgPgx4 {
		if _, tname, ok := namedPath(recv.Type()); ok && tname == "Batch" && name == "Queue" {
			op.Kind, op.Query, op.Params = Queue, 0, 1
			return op
		}
	}
	if pkg == pkgSQL {
		if _, tname, ok := namedPath(recv.Type()); ok && tname == "Stmt" {
			switch name {
			case "Exec", "ExecContext", "Query", "QueryContext", "QueryRow", "QueryRowContext":
				op.Kind = StmtRun
				op.Params = 0
				if strings.HasSuffix(name, "Context") {
					op.Params = 1
				}
			}
			return op
		}
	}
	if op.RecvKind == NotHandle {
		return op
	}
	switch name {
	case "Exec", "ExecContext", "Query", "QueryContext", "QueryRow", "QueryRowContext":
		if i := queryIndex(sig); i >= 0 {
			op.Kind, op.Query, op.Params = Query, i, i+1
			op = pgxNamedArgs(op)
			op = builderArgs(op)
		}
	case "Begin", "BeginTx":
		if sig.Results().Len() > 0 && rs.KindOf(sig.Results().At(0).Type()) == Tx {
			op.Kind = Begin
		}
	case "Commit":
		op.Kind = Commit
	case "Rollback":
		op.Kind = Rollback
	case "Conn", "Acquire":
		if sig.Results().Len() > 0 && rs.KindOf(sig.Results().At(0).Type()) == Conn {
			op.Kind = Acquire
			if name == "Conn" && (op.RecvKind == Conn || op.RecvKind == Tx) {
				// pgxpool.Conn.Conn() and pgx.Tx.Conn() return the
				// connection they already run on: the same session
				// (and, for a transaction, inside it), not a new one.
				op.Kind = Chain
			}
		}
	case "Release":
		op.Kind = Release
		op.Pooled = pkg == pkgPool5 || pkg == pkgPool4
	case "Close":
		if op.RecvKind == Conn {
			op.Kind = Release
			op.Pooled = pkg == pkgSQL
		}
	case "SendBatch":
		op.Kind, op.Batch = SendBatch, sig.Params().Len()-1
	case "Prepare", "PrepareContext":
		if pkg == pkgSQL {
			op.Kind, op.Query = Prepare, queryIndex(sig)
		}
	case "Stmt", "StmtContext":
		if pkg == pkgSQL && op.RecvKind == Tx {
			op.Kind, op.Query = BindStmt, len(args)-1
		}
	case "BeginFunc", "BeginTxFunc":
		// pgx v4 methods: conn.BeginFunc(ctx, f), pool.BeginTxFunc(ctx, opts, f).
		op.Kind, op.Func = BeginFunc, len(args)-1
	case "CopyFrom":
		return copyFrom(op, sig)
	}
	return op
}

// copyFrom models pgx's CopyFrom(ctx, pgx.Identifier{"t"}, []string{cols},
// rows), on a connection, pool or transaction or through an interface that
// declares it, as the INSERT it stands for: COPY FROM takes the table's
// ROW EXCLUSIVE lock and checks each row's foreign keys as an INSERT does.
// A table name that is not a literal leaves the call unmodelled.
func copyFrom(op Op, sig *types.Signature) Op {
	params := sig.Params()
	if params.Len() != 4 || len(op.Args) != 4 || !isContext(params.At(0).Type()) {
		return op
	}
	if pkg, name, ok := namedPath(params.At(1).Type()); !ok || (pkg != pkgPgx5 && pkg != pkgPgx4) || name != "Identifier" {
		return op
	}
	parts := constStrings(op.Args[1])
	if len(parts) == 0 {
		return op
	}
	table := strings.Join(parts, ".")
	text := "INSERT INTO " + table + " DEFAULT VALUES"
	if cols := constStrings(op.Args[2]); len(cols) > 0 {
		marks := make([]string, len(cols))
		for i := range cols {
			marks[i] = "$" + strconv.Itoa(i+1)
		}
		text = "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	}
	via := "CopyFrom"
	text = "/* " + via + ", as rebuilt by pglockorder */ " + text
	op.Kind = Query
	op.Query = len(op.Args)
	op.Params = -1
	op.Args = append(append([]ssa.Value(nil), op.Args...), ssa.NewConst(constant.MakeString(text), types.Typ[types.String]))
	op.Via = via
	return op
}

// classifyFunc handles package-level functions: pgx v5's BeginFunc and
// BeginTxFunc, which take the database as an argument.
func (rs *Rules) classifyFunc(op Op, fn *types.Func) Op {
	pkg := fn.Pkg().Path()
	if pkg != pkgPgx5 && pkg != pkgPgx4 {
		return op
	}
	switch fn.Name() {
	case "BeginFunc", "BeginTxFunc":
		if len(op.Args) >= 3 {
			op.Kind = BeginFunc
			op.Recv = op.Args[1]
			op.RecvKind = rs.KindOf(op.Recv.Type())
			op.Func = len(op.Args) - 1
		}
	}
	return op
}

// IsDriverPackage reports whether path is a database API package whose
// bodies pglockorder models instead of analysing.
func IsDriverPackage(path string) bool {
	switch path {
	case pkgSQL, pkgSQLMod, pkgPgx5, pkgPgx4, pkgPool5, pkgPool4:
		return true
	}
	if isLibraryPackage(path) {
		return true
	}
	return strings.HasPrefix(path, pkgPgx5+"/") || strings.HasPrefix(path, pkgPgx4+"/")
}

// sqlKind is the handle kind of a type named as database/sql names its
// handles (DB, Conn, Tx), which sqlx and bun follow.
func sqlKind(name string) HandleKind {
	switch name {
	case "DB":
		return Pool
	case "Conn":
		return Conn
	case "Tx":
		return Tx
	}
	return NotHandle
}

// pgxNamedArgs rewrites a constant query run with pgx's named arguments
// (tx.Exec(ctx, "... WHERE id = @id", pgx.NamedArgs{"id": id})) the way
// pgx sends it: each distinct @name becomes $n in order of first use, and
// the map's values are the statement's keys. PostgreSQL would read @id as
// the absolute value of a column id, so the text is not left as written.
func pgxNamedArgs(op Op) Op {
	if op.Params < 0 || op.Params >= len(op.Args) || op.Query < 0 {
		return op
	}
	elems, ok := variadicElems(op.Args[op.Params])
	if !ok || len(elems) != 1 {
		return op
	}
	m := stripConversions(elems[0])
	pkg, name, ok := namedPath(m.Type())
	if !ok || pkg != pkgPgx5 || name != "NamedArgs" && name != "StrictNamedArgs" {
		return op
	}
	values := map[string]ssa.Value{}
	for _, e := range mapEntries(m) {
		values[e.key] = stripInterface(e.value)
	}
	return bindNamed(op, '@', values)
}

// bindNamed rewrites the constant query of op, whose placeholders are
// marker-prefixed names, to $n placeholders, and binds the statement's keys
// to the named values (all of them known, or none).
func bindNamed(op Op, marker byte, values map[string]ssa.Value) Op {
	text, ok := constString(op.Args[op.Query])
	if !ok {
		return op
	}
	rewritten, names := rewriteNamed(text, marker)
	if len(names) == 0 {
		return op
	}
	keys := make([]ssa.Value, len(names))
	for i, n := range names {
		if keys[i] = values[n]; keys[i] == nil {
			keys = nil // a value set at run time: no keys
			break
		}
	}
	op.Args = append(append([]ssa.Value(nil), op.Args...), ssa.NewConst(constant.MakeString(rewritten), types.Typ[types.String]))
	op.Query = len(op.Args) - 1
	op.Params = -1
	op.Keys = keys
	return op
}

// rewriteNamed replaces named placeholders (pgx's @name, sqlx's :name),
// outside string literals, quoted identifiers and comments, by $1, $2, ...
// (one per distinct name), and returns the names in that order. A "::"
// cast is no placeholder.
func rewriteNamed(sql string, marker byte) (string, []string) {
	var (
		b     strings.Builder
		names []string
		index = map[string]int{}
	)
	isStart := func(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || '0' <= c && c <= '9' }
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(sql) {
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j += 2 // a doubled quote
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(sql))
			b.WriteString(sql[i:j])
			i = j
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			end := len(sql)
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(sql[i:end])
			i = end
		case c == ':' && marker == ':' && i+1 < len(sql) && sql[i+1] == ':':
			b.WriteString("::")
			i += 2
		case c == marker && i+1 < len(sql) && isStart(sql[i+1]):
			j := i + 1
			for j < len(sql) && isPart(sql[j]) {
				j++
			}
			n := sql[i+1 : j]
			k, seen := index[n]
			if !seen {
				names = append(names, n)
				k = len(names)
				index[n] = k
			}
			b.WriteString("$" + strconv.Itoa(k))
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), names
}

// builderArgs binds the keys of a statement a query builder rendered
// (q, args, err := builder.ToSql(), then tx.Exec(ctx, q, args...)): the
// values the builder's conditions hold, in the order of the rendered
// statement's $n, stand for the args slice, which is only known at run time.
func builderArgs(op Op) Op {
	if op.Params < 0 || op.Params >= len(op.Args) {
		return op
	}
	ex, ok := op.Args[op.Params].(*ssa.Extract)
	if !ok || ex.Index != 1 {
		return op
	}
	c, ok := ex.Tuple.(*ssa.Call)
	if !ok {
		return op
	}
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Pkg() == nil || len(c.Call.Args) == 0 {
		return op
	}
	var st *statement
	switch {
	case fn.Pkg().Path() == pkgSquirrel && fn.Name() == "ToSql":
		st, _, ok = squirrelStatement(c.Call.Args[0])
	case fn.Pkg().Path() == pkgGoqu && fn.Name() == "ToSQL" && goquDataset(c.Call.Args[0].Type()):
		st, _, ok = goquStatement(c.Call.Args[0])
	default:
		return op
	}
	if !ok || st.noArgs || st.unknown || len(st.args) == 0 || st.raw != "" {
		return op
	}
	op.Keys = st.args
	op.Params = -1
	return op
}
