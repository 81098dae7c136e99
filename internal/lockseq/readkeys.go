package lockseq

import (
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// Keys read from the database.
//
// A transaction that moves something from one row to another often finds
// the first row in the data and takes the second from its caller: it reads
// the appointment's current slot (SELECT slot_id FROM appointments ...),
// locks that slot, then the slot the caller names. Two such moves in
// opposite directions (one from s1 to s2, the other from s2 to s1) lock the
// two slots in opposite orders, exactly as two calls of a function that
// takes both keys from its caller and is called with them swapped: the
// caller-row-order rule counts a key read from the database as a value
// that no code orders against the caller's.
//
// A value read counts only when it was read from tables other than the one
// it keys. A value read from the locked table itself (the parent of a node
// in a tree, the id an INSERT ... RETURNING gave a new row) is tied to the
// rows the function already has: a tree has no cycles, and a new row is
// nobody else's. Two keys both read from the database are not compared:
// the data, not the code, then decides whether they can come in both
// orders.

// readPrefix starts the name of a value read from the database (see
// RowInfo.Read).
const readPrefix = "db:"

// readKey names a value that the function read from the database, as
// RowInfo.Read does, with the tables the reading statements touched; ""
// for any other value.
func (fa *fnAnalysis) readKey(v ssa.Value) (string, []string) {
	name, from := fa.readValue(v, 0)
	if name == "" || len(from) == 0 {
		return "", nil
	}
	return readPrefix + name, from
}

// readValue follows v back through fields and loads to a variable a Scan
// filled or the result of a call that ran SQL.
func (fa *fnAnalysis) readValue(v ssa.Value, depth int) (string, []string) {
	if v == nil || depth > maxOriginDepth {
		return "", nil
	}
	switch x := stripConversions(v).(type) {
	case *ssa.Field:
		if name, from := fa.readValue(x.X, depth+1); name != "" {
			return name + "." + fieldName(x.X.Type(), x.Field), from
		}
	case *ssa.UnOp:
		if x.Op != token.MUL {
			break
		}
		switch addr := x.X.(type) {
		case *ssa.FieldAddr:
			if name, from := fa.readValue(addr.X, depth+1); name != "" {
				return name + "." + fieldName(addr.X.Type(), addr.Field), from
			}
		case *ssa.Alloc:
			return fa.readValue(addr, depth+1)
		default:
			// A pointer a call returned (a, err := repo.Get(ctx, id);
			// a.SlotID reads *a's field through FieldAddr above; *a
			// itself here).
			return fa.readValue(addr, depth+1)
		}
	case *ssa.Alloc:
		if st := onlyStore(x, nil); st != nil {
			// A local set once: a, err := repo.Get(ctx, id), whose
			// fields are then read through its address.
			name, from := fa.readValue(st.Val, depth+1)
			if name != "" && x.Comment != "" {
				name = x.Comment
			}
			return name, from
		}
		if from := fa.scannedInto(x); len(from) > 0 {
			return x.Comment, from
		}
	case *ssa.Extract:
		if c, ok := x.Tuple.(*ssa.Call); ok {
			return fa.readResult(c, x.Index)
		}
	case *ssa.Call:
		return fa.readResult(x, 0)
	}
	return "", nil
}

// scannedInto returns the tables read by the statements whose rows are
// scanned into the local variable alloc, or into a field of it:
// row.Scan(&v), row.Scan(&s.ID), sqlx's tx.Get(&appt, ...), or a helper of
// the program that runs SQL and is given the variable's address.
func (fa *fnAnalysis) scannedInto(alloc *ssa.Alloc) []string {
	var from []string
	seen := map[ssa.Value]bool{}
	var walk func(v ssa.Value)
	walk = func(v ssa.Value) {
		if seen[v] || v.Referrers() == nil {
			return
		}
		seen[v] = true
		for _, ref := range *v.Referrers() {
			switch x := ref.(type) {
			case *ssa.FieldAddr:
				walk(x)
			case *ssa.MakeInterface:
				walk(x)
			case *ssa.Store:
				// &v stored into the variadic slice of a call.
				if x.Val == v {
					if ia, ok := x.Addr.(*ssa.IndexAddr); ok {
						for _, r := range *ia.X.Referrers() {
							if sl, ok := r.(*ssa.Slice); ok {
								walk(sl)
							}
						}
					}
				}
			case *ssa.Call:
				from = append(from, fa.readBy(x)...)
			}
		}
	}
	walk(alloc)
	slices.Sort(from)
	return slices.Compact(from)
}

// readBy returns the tables a call that fills a variable reads: the query a
// Scan reads the row of, a query call itself (sqlx's Get), or the callee's
// locks.
func (fa *fnAnalysis) readBy(c *ssa.Call) []string {
	if src := scanSource(c); src != nil {
		return fa.tablesAt(src)
	}
	if fa.a.env.Rules.Classify(c.Common()).Kind == sqlsite.Query {
		return fa.tablesAt(c)
	}
	return fa.calleeTables(c)
}

// readResult returns a name and the tables read for result i of a call of
// a function that runs SQL (a repository's lookup), unless the function
// only passes one of its arguments back.
func (fa *fnAnalysis) readResult(c *ssa.Call, i int) (string, []string) {
	if passedThrough(c, i) != nil {
		return "", nil
	}
	from := fa.calleeTables(c)
	if len(from) == 0 {
		return "", nil
	}
	name := ""
	if c.Call.IsInvoke() {
		name = c.Call.Method.Name()
	} else if f := c.Call.StaticCallee(); f != nil {
		name = f.Name()
	}
	if name == "" {
		return "", nil
	}
	return name + "(...)", from
}

// calleeTables returns the tables the callee of c (every implementation,
// for a call through an interface) takes locks on, sorted.
func (fa *fnAnalysis) calleeTables(c *ssa.Call) []string {
	var sums []*Summary
	cc := c.Common()
	switch {
	case cc.IsInvoke():
		impls := fa.a.implementations(fa.fn.Prog, cc.Value.Type(), cc.Method)
		if len(impls) > MaxImpls {
			return nil
		}
		for _, m := range impls {
			sums = append(sums, fa.a.implSummary(m))
		}
	default:
		if callee := cc.StaticCallee(); callee != nil {
			sums = append(sums, fa.a.summaryOf(callee))
		}
	}
	var out []string
	for _, s := range sums {
		if s == nil {
			continue
		}
		for _, e := range s.Events {
			if t := e.Lock.Class.Table(); t != "" {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tablesAt returns the tables of the locks the function's statement at site
// requested.
func (fa *fnAnalysis) tablesAt(site ssa.Instruction) []string {
	var out []string
	for k, i := range fa.eventIdx {
		if k.instr == site {
			if t := fa.events[i].Lock.Class.Table(); t != "" {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readElsewhere reports whether a row lock's key was read from the
// database, from tables other than the lock's own (see the comment at the
// top of the file).
func readElsewhere(ri RowInfo, table string) bool {
	return ri.Read != "" && ri.ReadFrom != "" && !slices.Contains(strings.Split(ri.ReadFrom, ","), table)
}

// setRead records in ri the value read from the database that v is, if
// any, with the tables read for it.
func (fa *fnAnalysis) setRead(ri *RowInfo, v ssa.Value, rest string) {
	ri.Read, ri.ReadFrom = "", ""
	name, from := fa.readKey(v)
	if name == "" {
		return
	}
	if rest != "" {
		name += "." + rest
	}
	ri.Read, ri.ReadFrom = name, strings.Join(from, ",")
}

// anyKey names a Go value as the row rules compare keys: its origin, or the
// value read from the database it is.
func (fa *fnAnalysis) anyKey(v ssa.Value) string {
	if o := fa.origin(v, 0); o != "" {
		return o
	}
	name, _ := fa.readKey(v)
	return name
}

// Keys scanned from the row they key.
//
// A function that locks a row by its key and scans the row
// (SELECT id, status FROM shipments WHERE id = $1 FOR UPDATE into sh) holds
// the key in the scanned column as well as in the value it passed: sh.ID is
// shipmentID. Later statements keyed by sh.ID (the shipment's parcels,
// WHERE shipment_id = sh.ID) are chosen by the same value as the gate, and
// the rules that compare keys (keyed gates, a parent row that scopes the
// rows of a later statement) see it so.

// scannedKey returns the origin of the key of a single-row lock whose row
// filled the local variable root (field < 0) or its field: scanned by
// position (row.Scan(&sh.ID), the column the key's), or as a whole struct
// by column name (sqlx's Get(&sh, ...), a helper given &sh, whose lock
// this function's copy is: the field whose db tag, or lower-cased name, is
// the key's column). It returns "" when there is none.
func (fa *fnAnalysis) scannedKey(root *ssa.Alloc, field int) string {
	refs := root.Referrers()
	if refs == nil {
		return ""
	}
	for _, ref := range *refs {
		switch x := ref.(type) {
		case *ssa.FieldAddr:
			if field >= 0 && x.Field == field {
				if site, col := scanInto(x); site != nil {
					if k := fa.keyInColumn(site, col, ""); k != "" {
						return k
					}
				}
			}
		case *ssa.Call:
			// The struct's address given to a helper that fills it
			// (lockShipment(ctx, tx, id, &sh)).
			if col := columnOf(root.Type(), field); field >= 0 && col != "" && slices.Contains(x.Call.Args, ssa.Value(root)) {
				if k := fa.keyInColumn(x, -1, col); k != "" {
					return k
				}
			}
		case *ssa.MakeInterface:
			if field < 0 {
				if site, col := scanInto(root); site != nil {
					if k := fa.keyInColumn(site, col, ""); k != "" {
						return k
					}
				}
				continue
			}
			// The whole struct given to a call that fills it.
			col := columnOf(root.Type(), field)
			for _, r := range *x.Referrers() {
				if c, ok := r.(*ssa.Call); ok && col != "" {
					if k := fa.keyInColumn(c, -1, col); k != "" {
						return k
					}
				}
			}
		}
	}
	return ""
}

// keyInColumn returns the key origin of a single-row lock the statement at
// site takes by an equality on its key column, when the row's result column
// col (by position), or the column named name, is that key column.
func (fa *fnAnalysis) keyInColumn(site ssa.Instruction, col int, name string) string {
	var at []int
	for k, i := range fa.eventIdx {
		if k.instr == site {
			at = append(at, i)
		}
	}
	slices.Sort(at) // the first such lock, whatever the map's order
	for _, i := range at {
		e := fa.events[i]
		if !e.Lock.Class.IsRow() || e.Rows.Multi || e.Rows.KeyColumn == "" || e.Rows.Key == "" || len(e.Path) == 0 {
			continue
		}
		cols := lockmodel.ResultColumns(e.Path[len(e.Path)-1].SQL)
		switch {
		case col >= 0 && col < len(cols) && cols[col] == e.Rows.KeyColumn:
			return e.Rows.Key
		case col < 0 && name == e.Rows.KeyColumn && (slices.Contains(cols, name) || slices.Contains(cols, "")):
			return e.Rows.Key
		}
	}
	return ""
}

// columnOf returns the column a field of the struct that t points to is
// scanned from by name: its db tag, else its name in lower case.
func columnOf(t types.Type, field int) string {
	s := structOf(t)
	if s == nil || field < 0 || field >= s.NumFields() {
		return ""
	}
	if tag, ok := reflect.StructTag(s.Tag(field)).Lookup("db"); ok {
		name, _, _ := strings.Cut(tag, ",")
		return name
	}
	return strings.ToLower(s.Field(field).Name())
}
