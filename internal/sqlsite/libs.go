package sqlsite

import (
	"go/constant"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/jinzhu/inflection"
	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// This file holds what the models of the ORMs and query builders (sqlx,
// GORM, bun, squirrel) share. Their calls are recognised by package path and
// method name; their bodies are never analysed. A chain that builds a query
// (db.Model(&job).Clauses(clause.Locking{Strength: "UPDATE"}).First(&job))
// becomes a Query operation whose text is an equivalent canonical statement
// (SELECT * FROM jobs FOR UPDATE), so the lock model sees what the library
// sends to the server.

// maxChain bounds the length of a builder chain followed back from its end.
const maxChain = 32

// link is one method call of a builder chain.
type link struct {
	name string
	args []ssa.Value // without the receiver
}

// staticFunc returns the function a call statically calls, or nil.
func staticFunc(c *ssa.CallCommon) *types.Func {
	if c.IsInvoke() {
		return nil
	}
	callee := c.StaticCallee()
	if callee == nil {
		return nil
	}
	if callee.Origin() != nil {
		callee = callee.Origin()
	}
	fn, _ := callee.Object().(*types.Func)
	return fn
}

// chainOf walks back from v through the calls that isLink accepts, each one
// a method of the previous call's result. It returns the value the chain
// starts from and the links in call order. Where the chain was built in
// branches (q := sq.Select(...); if f { q = q.Where(...) }), the links of
// every branch are kept: the statement is taken with all of them, which
// over-approximates the locks of each branch.
func chainOf(v ssa.Value, isLink func(*types.Func) bool) (ssa.Value, []link) {
	var links []link
	root := walkChain(v, isLink, &links, map[ssa.Value]bool{})
	for i, j := 0, len(links)-1; i < j; i, j = i+1, j-1 {
		links[i], links[j] = links[j], links[i]
	}
	if root == nil {
		root = v
	}
	return root, links
}

// walkChain appends the links from v back to the start of its chain, last
// first, and returns the start (nil when every branch loops back). A chain
// begun in a helper of the analysed code (func (r *Repo) jobs()
// sq.SelectBuilder { return r.sb.Select("*").From("jobs") }, a GORM scope
// func locked(tx *gorm.DB) *gorm.DB) is followed into the helper's return,
// with the helper's parameters standing for the call's arguments.
func walkChain(v ssa.Value, isLink func(*types.Func) bool, links *[]link, seen map[ssa.Value]bool) ssa.Value {
	return walkChainIn(v, isLink, links, seen, nil, 0)
}

func walkChainIn(v ssa.Value, isLink func(*types.Func) bool, links *[]link, seen map[ssa.Value]bool, env map[*ssa.Parameter]ssa.Value, depth int) ssa.Value {
	bind := func(x ssa.Value) ssa.Value {
		if p, ok := x.(*ssa.Parameter); ok && env[p] != nil {
			return env[p]
		}
		return x
	}
	for range maxChain {
		v = bind(v)
		if seen[v] {
			return nil
		}
		seen[v] = true
		switch x := v.(type) {
		case *ssa.Phi:
			var root ssa.Value
			for _, e := range x.Edges {
				if r := walkChainIn(e, isLink, links, seen, env, depth); root == nil {
					root = r
				}
			}
			return root
		case *ssa.Call:
			if x.Call.IsInvoke() && isLink(x.Call.Method) {
				// A builder whose links are methods of an interface
				// (go-jet's statements): the receiver is the value
				// called through.
				args := make([]ssa.Value, len(x.Call.Args))
				for i, a := range x.Call.Args {
					args[i] = bind(a)
				}
				*links = append(*links, link{name: x.Call.Method.Name(), args: args})
				v = x.Call.Value
				continue
			}
			fn := staticFunc(&x.Call)
			if fn != nil && fn.Signature().Recv() != nil && len(x.Call.Args) > 0 && isLink(fn) {
				args := make([]ssa.Value, len(x.Call.Args)-1)
				for i, a := range x.Call.Args[1:] {
					args[i] = bind(a)
				}
				*links = append(*links, link{name: fn.Name(), args: args})
				v = x.Call.Args[0]
				continue
			}
			if root, ok := walkHelper(x, isLink, links, seen, bind, depth); ok {
				return root
			}
			return v
		default:
			return v
		}
	}
	return v
}

// walkHelper follows a chain into the single return of a helper function
// of the analysed code that the call x calls.
func walkHelper(x *ssa.Call, isLink func(*types.Func) bool, links *[]link, seen map[ssa.Value]bool, bind func(ssa.Value) ssa.Value, depth int) (ssa.Value, bool) {
	callee := x.Call.StaticCallee()
	if depth >= 3 || callee == nil || len(callee.Blocks) == 0 || callee.Signature.Results().Len() != 1 || len(callee.Params) != len(x.Call.Args) {
		return nil, false
	}
	var ret ssa.Value
	for _, b := range callee.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(r.Results) == 1 {
			if ret != nil {
				return nil, false // several returns: not a plain helper
			}
			ret = r.Results[0]
		}
	}
	if ret == nil {
		return nil, false
	}
	env := map[*ssa.Parameter]ssa.Value{}
	for i, p := range callee.Params {
		env[p] = bind(x.Call.Args[i])
	}
	n := len(*links)
	root := walkChainIn(ret, isLink, links, seen, env, depth+1)
	if len(*links) == n {
		*links = (*links)[:n]
		return nil, false // the helper builds nothing
	}
	if !visibleIn(root, x.Parent()) {
		// The chain starts at a value of the helper's own (its
		// receiver's field: func (r *Repo) q(ctx) *gorm.DB { return
		// r.db.WithContext(ctx) }), which means nothing in the caller:
		// the handle is the helper's result, which the helper's summary
		// resolves.
		return x, true
	}
	return root, true
}

// visibleIn reports whether v can be read in fn: a value of fn itself, or
// one of no function (a constant, a global, a function).
func visibleIn(v ssa.Value, fn *ssa.Function) bool {
	switch x := v.(type) {
	case *ssa.Parameter:
		return x.Parent() == fn
	case *ssa.FreeVar:
		return x.Parent() == fn
	case ssa.Instruction:
		return x.Parent() == fn
	}
	return true
}

// sameTypeLink accepts methods of package pkg whose first result has the
// receiver's type: the builder methods that return the builder.
func sameTypeLink(pkg string, except ...string) func(*types.Func) bool {
	return func(fn *types.Func) bool {
		if fn.Pkg() == nil || fn.Pkg().Path() != pkg {
			return false
		}
		for _, e := range except {
			if fn.Name() == e {
				return false
			}
		}
		sig := fn.Signature()
		return sig.Results().Len() > 0 && types.Identical(sig.Results().At(0).Type(), sig.Recv().Type())
	}
}

// constString returns the constant string value v holds, looking through
// conversions to interfaces.
func constString(v ssa.Value) (string, bool) {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
			continue
		case *ssa.ChangeType:
			v = x.X
			continue
		case *ssa.Const:
			if x.Value != nil && x.Value.Kind() == constant.String {
				return constant.StringVal(x.Value), true
			}
		}
		return "", false
	}
}

// constStrings returns the constant strings of a variadic argument.
func constStrings(v ssa.Value) []string {
	elems, ok := variadicElems(v)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range elems {
		if s, ok := constString(e); ok {
			out = append(out, s)
		}
	}
	return out
}

// structFields returns the constant string fields of a struct value built
// as a composite literal (clause.Locking{Strength: "UPDATE"}), by name.
func structFields(v ssa.Value) map[string]string {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	load, ok := v.(*ssa.UnOp)
	if !ok {
		return nil
	}
	var refs []ssa.Instruction
	switch x := load.X.(type) {
	case *ssa.Alloc:
		refs = *x.Referrers()
	case *ssa.Global:
		// A package-level literal (var forUpdate = clause.Locking{...}):
		// the package's init function stores a literal built like a
		// local one.
		if x.Pkg == nil || x.Pkg.Func("init") == nil {
			return nil
		}
		for _, b := range x.Pkg.Func("init").Blocks {
			for _, instr := range b.Instrs {
				if s, ok := instr.(*ssa.Store); ok && s.Addr == x {
					return structFields(s.Val)
				}
			}
		}
		return nil
	default:
		return nil
	}
	ptr, ok := load.X.Type().(*types.Pointer)
	if !ok {
		return nil
	}
	st, ok := ptr.Elem().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, ref := range refs {
		fa, ok := ref.(*ssa.FieldAddr)
		if !ok || fa.X != load.X {
			continue
		}
		for _, r2 := range *fa.Referrers() {
			if s, ok := r2.(*ssa.Store); ok && s.Addr == fa {
				if c, ok := constString(s.Val); ok {
					out[st.Field(fa.Field).Name()] = c
				}
			}
		}
	}
	return out
}

// modelType returns the struct type a model argument stands for (&job,
// &jobs, []*Job{}): the named type under pointers and slices.
func modelType(v ssa.Value) *types.Named {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	t := v.Type()
	for range 4 {
		switch u := types.Unalias(t).(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Slice:
			t = u.Elem()
			continue
		case *types.Named:
			if _, ok := u.Underlying().(*types.Struct); ok {
				return u
			}
		}
		return nil
	}
	return nil
}

// tableNameMethod returns the constant a model's TableName() method
// returns (GORM's and xorm's way to override the default name). A method
// declared in another package has no body in this package's program: its
// constant is that package's fact (ext.TableName).
func tableNameMethod(prog *ssa.Program, t *types.Named, ext *Externals) (string, bool) {
	if prog == nil {
		return "", false
	}
	for _, recv := range []types.Type{t, types.NewPointer(t)} {
		sel := prog.MethodSets.MethodSet(recv).Lookup(t.Obj().Pkg(), "TableName")
		if sel == nil {
			continue
		}
		fn := prog.MethodValue(sel)
		if fn == nil {
			continue
		}
		if len(fn.Blocks) == 0 {
			// Declared in another package: its body is not built.
			if obj, ok := sel.Obj().(*types.Func); ok && ext != nil && ext.TableName != nil {
				return ext.TableName(obj)
			}
			continue
		}
		if s, ok := ConstantResult(fn); ok {
			return s, true
		}
	}
	return "", false
}

// DeclaresTableName reports whether a package declares a TableName method
// that returns a string on one of its types: an ORM model whose table name
// its importers need (a fact of the package, so it must be analysed).
func DeclaresTableName(pkg *types.Package) bool {
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for m := range named.Methods() {
			if m.Name() == "TableName" && m.Signature().Params().Len() == 0 && m.Signature().Results().Len() == 1 &&
				isString(m.Signature().Results().At(0).Type()) {
				return true
			}
		}
	}
	return false
}

// ConstantResult returns the constant string a function with one result
// returns on every path (a model's TableName method), if it does.
func ConstantResult(fn *ssa.Function) (string, bool) {
	if fn == nil || fn.Signature.Results().Len() != 1 {
		return "", false
	}
	found, out := false, ""
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		s, ok := constString(ret.Results[0])
		if !ok || found && s != out {
			return "", false
		}
		found, out = true, s
	}
	return out, found
}

// defaultTableName is the name GORM's and bun's default naming strategies
// give a model type: its name in snake_case, pluralised by the inflection
// rules both libraries use (github.com/jinzhu/inflection).
func defaultTableName(name string) string {
	return inflection.Plural(snakeCase(name))
}

// snakeCase turns a Go name into snake_case the way bun's and GORM's
// naming does: an upper-case letter starts a word after a lower-case one or
// before one, so initialisms stay together (HTTPRequest gives
// http_request, UserID gives user_id).
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && i+1 < len(rs) && (unicode.IsLower(rs[i-1]) || unicode.IsLower(rs[i+1])) ||
				i > 0 && i+1 == len(rs) && unicode.IsLower(rs[i-1]) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// structTag returns the value of key in the tag of t's field of type
// fieldPkg.fieldType (bun's `bun:"table:jobs"` on bun.BaseModel).
func structTag(t *types.Named, fieldPkg, fieldType, key string) (string, bool) {
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return "", false
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		// Look at the name as written: bun.BaseModel is an alias of
		// schema.BaseModel.
		if n, ok := f.Type().(*types.Alias); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == fieldPkg && n.Obj().Name() == fieldType {
			v, ok := reflect.StructTag(st.Tag(i)).Lookup(key)
			return v, ok
		}
		if pkg, name, ok := namedPath(f.Type()); ok && pkg == fieldPkg && name == fieldType {
			v, ok := reflect.StructTag(st.Tag(i)).Lookup(key)
			return v, ok
		}
	}
	return "", false
}

// progOf returns the program that one of the values belongs to.
func progOf(vs ...ssa.Value) *ssa.Program {
	for _, v := range vs {
		if v == nil {
			continue
		}
		if fn := v.Parent(); fn != nil {
			return fn.Prog
		}
	}
	return nil
}

// statement is a query a builder chain builds, in parts.
type statement struct {
	verb   string // SELECT, UPDATE, DELETE, INSERT
	table  string
	where  []string
	set    string // the column an UPDATE sets, if known
	order  []string
	limit1 bool // the library asks for one row (First, Take)
	suffix []string
	prefix []string // text before the statement (squirrel's Prefix: a WITH clause)
	raw    string   // a raw SQL text (GORM's Raw, bun's NewRaw)
	// unknown is set when the chain filters rows by conditions that
	// cannot be rendered (a struct condition, a function predicate).
	unknown bool
	// args are the values of the conditions' ? markers, in order; args
	// are not kept when one of them is unknown (noArgs).
	args   []ssa.Value
	noArgs bool
	// holes are the parts of the text that are Go values, not constants
	// (holes.go).
	holes []ssa.Value
	// columns and values are an INSERT's column list and its one row of
	// values (squirrel's Columns and Values): a foreign-key check is on
	// the parent row the value written to its column names.
	columns []string
	values  []ssa.Value
	rows    int
}

// addWhere adds a condition and the values of its ? markers.
func (s *statement) addWhere(cond string, args ...ssa.Value) {
	s.where = append(s.where, cond)
	if strings.Count(cond, "?") != len(args) {
		s.noArgs = true
		return
	}
	s.args = append(s.args, args...)
}

// unknownFilter stands for conditions the chain has but that cannot be
// rendered: an equality on a column that is no key, which tells the row
// model "some rows, chosen by a predicate" without claiming the statement
// locks the whole table in no order (which no WHERE at all would say).
const unknownFilter = "pglockorder_unrendered_filter = 'pglockorder'"

// sql renders the statement as PostgreSQL text. WHERE conditions that do
// not parse (a dialect's quoting) are replaced by unknownFilter rather than
// losing the statement and its locks.
func (s *statement) sql() (string, bool) {
	text, ok := s.body()
	if !ok || len(s.prefix) == 0 {
		return text, ok
	}
	full := strings.Join(s.prefix, " ") + " " + text
	if lockmodel.Analyze(full).Err != nil {
		// A prefix of the dialect's own (a comment hint, say): the
		// statement without it.
		return text, true
	}
	return full, true
}

// body renders the statement without its prefix.
func (s *statement) body() (string, bool) {
	if s.raw != "" {
		return s.raw, true
	}
	if s.table == "" {
		return "", false
	}
	var head string
	switch s.verb {
	case "SELECT":
		head = "SELECT * FROM " + s.table
	case "UPDATE":
		col := s.set
		if col == "" {
			col = "updated_at"
		}
		// Assigning the column its own value takes the row lock of
		// any UPDATE and replays on any schema that has the column,
		// where DEFAULT could violate NOT NULL.
		head = "UPDATE " + s.table + " SET " + col + " = " + col
	case "DELETE":
		head = "DELETE FROM " + s.table
	case "INSERT":
		if len(s.columns) > 0 && s.rows == 1 && len(s.columns) == len(s.values) && s.where == nil {
			marks := strings.Repeat("?, ", len(s.values))
			return "INSERT INTO " + s.table + " (" + strings.Join(s.columns, ", ") + ") VALUES (" + marks[:len(marks)-2] + ")", true
		}
		return "INSERT INTO " + s.table + " DEFAULT VALUES", true
	default:
		return "", false
	}
	var tail string
	if s.verb == "SELECT" {
		if len(s.order) > 0 {
			tail += " ORDER BY " + strings.Join(s.order, ", ")
		}
		if s.limit1 {
			tail += " LIMIT 1"
		}
	}
	if len(s.suffix) > 0 {
		tail += " " + strings.Join(s.suffix, " ")
	}
	conds := s.where
	if s.unknown {
		conds = append(slices.Clone(conds), unknownFilter)
	}
	if len(conds) > 0 {
		full := head + " WHERE (" + strings.Join(conds, ") AND (") + ")" + tail
		if lockmodel.Analyze(full).Err == nil {
			return full, true
		}
		head += " WHERE " + unknownFilter
	}
	if tail != "" && lockmodel.Analyze(head+tail).Err != nil {
		// An ORDER BY or suffix of the dialect's own: keep the lock
		// clause only.
		return head + lockSuffix(s.suffix), true
	}
	return head + tail, true
}

// lockSuffix keeps the locking clauses of a statement's suffixes.
func lockSuffix(suffix []string) string {
	for _, x := range suffix {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(x)), "FOR ") {
			return " " + x
		}
	}
	return ""
}

// builtQuery returns a Query operation on handle recv that runs the
// statement, or false when the chain did not say enough to render it.
func (rs *Rules) builtQuery(op Op, recv ssa.Value, st *statement, via string) (Op, bool) {
	text, ok := st.sql()
	if !ok || recv == nil {
		return op, false
	}
	if st.raw == "" {
		// Say where the text comes from wherever it is shown (a
		// reproducer replays it): it is the library's statement as far
		// as the Go code tells, not its exact text.
		text = "/* " + via + ", as rebuilt by pglockorder */ " + text
	}
	op.Kind = Query
	op.Recv = recv
	op.RecvKind = rs.KindOf(recv.Type())
	op.Query = len(op.Args)
	op.Params = -1
	fn := holesParent(append(append([]ssa.Value{recv}, st.holes...), op.Args...)...)
	op.Args = append(append([]ssa.Value(nil), op.Args...), st.textValue(text, fn))
	op.Via = via
	if !st.noArgs && len(st.args) > 0 && st.raw == "" {
		op.Keys = st.args
	}
	return op, true
}

// libraryKind is the handle kind of a library's handle type.
func (rs *Rules) libraryKind(t types.Type) HandleKind {
	pkg, name, ok := namedPath(t)
	if !ok {
		return NotHandle
	}
	if k := entKind(t); k != NotHandle {
		return k
	}
	if rs.userHandle(t) {
		return Maybe
	}
	switch pkg {
	case pkgSqlx, pkgBun:
		return sqlKind(name)
	case pkgGorm:
		if name == "DB" {
			return Maybe
		}
	case pkgXorm:
		return xormKind(name)
	case pkgGoqu:
		return goquKind(name)
	case pkgBeego, pkgBeegoV1:
		return beegoKind(pkg, name)
	}
	return NotHandle
}

// classifyLibrary dispatches a call to a method or function of a modelled
// library to its model.
func (rs *Rules) classifyLibrary(op Op, fn *types.Func, recv ssa.Value, call *ssa.CallCommon) (Op, bool) {
	switch fn.Pkg().Path() {
	case pkgSqlx:
		return rs.classifySqlx(op, fn, recv)
	case pkgGorm:
		return rs.classifyGorm(op, fn, recv)
	case pkgBun:
		return rs.classifyBun(op, fn, recv)
	case pkgSquirrel:
		return rs.classifySquirrel(op, fn, recv)
	case pkgGoqu, pkgGoquExec:
		return rs.classifyGoqu(op, fn, recv)
	case pkgXorm:
		return rs.classifyXorm(op, fn, recv, call)
	case pkgBeego, pkgBeegoV1:
		return rs.classifyBeego(op, fn, recv)
	case pkgJetPG, pkgJetInternal:
		return rs.classifyJet(op, fn, recv)
	}
	if isScanyPackage(fn.Pkg().Path()) {
		return rs.classifyScany(op, fn)
	}
	if recv != nil {
		if _, ok := entGenerated(recv.Type()); ok {
			return rs.classifyEnt(op, fn, recv)
		}
	}
	return rs.classifySqlxLike(op, fn, recv)
}

// isLibraryPackage reports whether path is a package of a modelled
// library (or one of its sub-packages, such as gorm.io/gorm/clause).
func isLibraryPackage(path string) bool {
	for _, p := range []string{pkgSqlx, pkgGorm, pkgBun, pkgSquirrel, pkgGoqu, pkgScany, pkgXorm, "gorm.io/driver", "entgo.io/ent", pkgBeego, pkgBeegoV1, pkgJet} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// unwrapEmbedded returns, for the receiver of a database/sql method
// promoted from a library handle that embeds *sql.DB or *sql.Tx (sqlx.DB,
// bun.Tx), the library handle itself: db.Exec and db.Get then run on the
// same handle, and tx.Commit ends the transaction tx.Get ran in.
func (rs *Rules) unwrapEmbedded(recv ssa.Value) ssa.Value {
	var (
		x     ssa.Value
		field int
	)
	switch v := recv.(type) {
	case *ssa.UnOp:
		fa, ok := v.X.(*ssa.FieldAddr)
		if !ok {
			return recv
		}
		x, field = fa.X, fa.Field
	case *ssa.Field:
		x, field = v.X, v.Field
	default:
		return recv
	}
	st := structOfType(x.Type())
	if st == nil || field >= st.NumFields() || !st.Field(field).Embedded() || rs.libraryKind(x.Type()) == NotHandle {
		return recv
	}
	return x
}

// structOfType returns the struct type of t, through one pointer.
func structOfType(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, _ := t.Underlying().(*types.Struct)
	return s
}

// library resolves the text a library call returns: the query it was
// given, with only its bind markers changed (sqlx's Rebind and In), or the
// statement a builder renders (squirrel's ToSql).
func (r *resolver) library(c *ssa.Call, depth int) (alts, bool) {
	if c.Call.IsInvoke() && c.Call.Method.Name() == "Rebind" && len(c.Call.Args) == 1 && isString(c.Call.Args[0].Type()) {
		// Rebind through an interface (sqlx.Ext, sqlx.ExtContext, a
		// repository's DBTX embedding them): the query with other bind
		// markers.
		return r.value(c.Call.Args[0], depth+1), true
	}
	if t, ok := jetToSQL(c); ok {
		return r.value(t, depth+1), true
	}
	fn := staticFunc(&c.Call)
	if fn == nil {
		return alts{}, false
	}
	if i, ok := sqlxPassThrough(fn); ok && i < len(c.Call.Args) {
		return r.value(c.Call.Args[i], depth+1), true
	}
	if t, ok := squirrelToSQL(c); ok {
		return r.value(t, depth+1), true
	}
	if t, ok := goquToSQL(c); ok {
		return r.value(t, depth+1), true
	}
	if t, ok := r.pqText(c); ok {
		return t, true
	}
	return alts{}, false
}

// constStringValue returns the value of a string constant.
func constStringValue(c *types.Const) (string, bool) {
	if c.Val().Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(c.Val()), true
}

// isConstOne reports whether v is the integer constant 1.
func isConstOne(v ssa.Value) bool {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return false
	}
	n, exact := constant.Int64Val(c.Value)
	return exact && n == 1
}
