package lockmodel

import (
	"fmt"
	"testing"
)

// renderRows writes the row set of every row lock and per-row advisory lock
// of a string, compactly:
//
//	<table|advisory> one [key=<col>[/$n]] | multi(<why>) [order=<order>] [prelocked] [ordered-by-plan]
func renderRows(effects []Effect) []string {
	var out []string
	for _, e := range effects {
		if e.Kind != Acquire || e.Lock.Kind == Table {
			continue
		}
		name := e.Lock.Table
		if e.Lock.Kind == Advisory {
			name = "advisory"
		}
		r := e.Rows
		s := name + " one"
		if r.Multi {
			s = name + " multi(" + r.Why + ")"
		}
		if r.KeyColumn != "" || r.KeyParam > 0 {
			s += " key=" + r.KeyColumn
			if r.KeyParam > 0 {
				s += fmt.Sprintf("/$%d", r.KeyParam)
			}
		}
		if r.Order != "" {
			s += " order=" + r.Order
		}
		if r.PreLocked {
			s += " prelocked"
		}
		if r.EqualityOnly {
			s += " ordered-by-plan"
		}
		out = append(out, s)
	}
	return out
}

func TestRowSets(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		// Single rows: equality on a key column, LIMIT 1.
		{"SELECT * FROM accounts WHERE id = $1 FOR UPDATE", []string{"accounts one key=id/$1"}},
		{"SELECT * FROM accounts a WHERE a.id = $2::bigint AND a.tenant = $1 FOR UPDATE", []string{"accounts one key=id/$2"}},
		{"SELECT * FROM accounts WHERE account_id = $1 FOR UPDATE", []string{"accounts one key=account_id/$1"}},
		{"SELECT * FROM categories WHERE category_id = $1 FOR UPDATE", []string{"categories one key=category_id/$1"}},
		{"SELECT * FROM accounts WHERE id IN ($1) FOR UPDATE", []string{"accounts one key=id/$1"}},
		{"SELECT * FROM jobs WHERE status = 'queued' LIMIT 1 FOR UPDATE", []string{"jobs one"}},
		{"SELECT * FROM accounts WHERE 7 = id FOR UPDATE", []string{"accounts one key=id"}},
		// Several rows, and why.
		{"SELECT * FROM accounts WHERE id = ANY($1) FOR UPDATE", []string{"accounts multi(= ANY(...))"}},
		{"SELECT * FROM accounts WHERE id IN ($1, $2) FOR UPDATE", []string{"accounts multi(IN (...))"}},
		// A set of constants is the statement's own: one plan, one order
		// for every execution; only a caller-chosen set is unordered.
		{"SELECT * FROM accounts WHERE id IN (1, 2) FOR UPDATE", []string{"accounts multi(a constant set, not a key) ordered-by-plan"}},
		{"SELECT * FROM invoices WHERE account_id = $1 AND status IN ('draft', 'open') FOR UPDATE", []string{"invoices multi(equality on account_id and a constant set, not a key) key=/$1 ordered-by-plan"}},
		{"SELECT * FROM invoices WHERE account_id = $1 AND status = ANY('{draft,open}') FOR UPDATE", []string{"invoices multi(equality on account_id and a constant set, not a key) key=/$1 ordered-by-plan"}},
		{"SELECT * FROM invoices WHERE account_id = $1 AND status = ANY(ARRAY['draft', 'open']::text[]) FOR UPDATE", []string{"invoices multi(equality on account_id and a constant set, not a key) key=/$1 ordered-by-plan"}},
		{"SELECT * FROM invoices WHERE account_id = $1 AND status = ANY($2) FOR UPDATE", []string{"invoices multi(= ANY(...))"}},
		{"SELECT * FROM invoices WHERE account_id = $1 AND status IN ($2, 'open') FOR UPDATE", []string{"invoices multi(IN (...))"}},
		{"SELECT * FROM accounts WHERE id IN (SELECT account_id FROM transfers) FOR UPDATE", []string{"accounts multi(IN (sub-query))"}},
		{"SELECT * FROM accounts WHERE id > $1 FOR UPDATE", []string{"accounts multi(a range)"}},
		{"SELECT * FROM accounts WHERE id BETWEEN 1 AND 9 FOR UPDATE", []string{"accounts multi(a range)"}},
		// A range within the rows of one value: one predicate, one plan.
		{"SELECT indx FROM chunks WHERE inode = $1 AND indx > $2 AND indx < $3 FOR UPDATE", []string{"chunks multi(equality on inode and a range, not a key) key=/$1 ordered-by-plan"}},
		{"DELETE FROM events WHERE tenant = $1 AND at BETWEEN $2 AND $3", []string{"events multi(equality on tenant and a range, not a key) key=/$1 ordered-by-plan"}},
		{"SELECT * FROM chunks WHERE inode = $1 AND indx < $2 AND id = ANY($3) FOR UPDATE", []string{"chunks multi(a range)"}},
		{"DELETE FROM tasks WHERE queue = $1 AND task_id IN (SELECT task_id FROM tasks WHERE queue = $1 AND task_id < $2 ORDER BY task_id LIMIT $3)",
			[]string{"tasks multi(equality on queue and a sub-query, not a key) key=/$1 ordered-by-plan"}},
		{"DELETE FROM tasks WHERE queue = $1 AND task_id IN (SELECT task_id FROM tasks WHERE queue = $1 ORDER BY task_id LIMIT $2)",
			[]string{"tasks multi(equality on queue and a sub-query, not a key) key=/$1 ordered-by-plan"}},
		{"DELETE FROM tasks WHERE queue = $1 AND task_id IN (SELECT task_id FROM picked WHERE id = ANY($2))", []string{"tasks multi(IN (sub-query))"}},
		{"DELETE FROM tasks WHERE queue = $1 AND task_id IN (SELECT unnest($2::bigint[]))", []string{"tasks multi(IN (sub-query))"}},
		{"DELETE FROM tasks WHERE queue = $1 AND task_id IN (SELECT k FROM unnest($2::bigint[]) k)", []string{"tasks multi(IN (sub-query))"}},
		{"DELETE FROM tasks WHERE task_id IN (SELECT task_id FROM tasks WHERE queue = $1 LIMIT $2)", []string{"tasks multi(IN (sub-query))"}},
		{"SELECT * FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.inode = $1 AND c.indx < $2 FOR UPDATE", []string{"chunks multi(a range)", "files multi(a join)"}},
		{"SELECT * FROM accounts FOR UPDATE", []string{"accounts multi(no WHERE clause)"}},
		{"SELECT * FROM sessions WHERE user_id = $1 FOR UPDATE", []string{"sessions multi(equality on user_id, not a key) key=/$1 ordered-by-plan"}},
		{"SELECT * FROM t WHERE lower(name) LIKE $1 FOR SHARE", []string{"t multi(a predicate that can match several rows)"}},
		// Joins: each locked relation on its own.
		{"SELECT * FROM orders o JOIN items i ON i.order_id = o.id WHERE o.id = $1 FOR UPDATE", []string{"orders one key=id/$1", "items multi(a join)"}},
		{"SELECT * FROM orders o JOIN items i ON i.order_id = o.id WHERE o.id = $1 FOR UPDATE OF o", []string{"orders one key=id/$1"}},
		// Order.
		{"SELECT * FROM accounts WHERE id = ANY($1) ORDER BY id FOR UPDATE", []string{"accounts multi(= ANY(...)) order=id"}},
		{"SELECT * FROM blocks b WHERE b.height > $1 ORDER BY b.hash DESC, inserted_at NULLS FIRST FOR UPDATE", []string{"blocks multi(a range) order=hash DESC, inserted_at NULLS FIRST"}},
		{"SELECT * FROM blocks ORDER BY lower(hash) DESC NULLS FIRST FOR UPDATE", []string{"blocks multi(no WHERE clause) order=(expression 1) DESC"}},
		// A join of relations each selected by a full key: one row each.
		{"SELECT * FROM accounts a JOIN wallets w ON w.id = a.wallet_id WHERE a.id = $1 FOR UPDATE", []string{"accounts one key=id/$1", "wallets one"}},
		{"SELECT * FROM accounts a JOIN wallets w ON w.account_id = a.id WHERE a.id = $1 FOR UPDATE", []string{"accounts one key=id/$1", "wallets multi(a join)"}},
		{"SELECT * FROM accounts a JOIN wallets w ON w.id = a.wallet_id WHERE a.tenant = $1 FOR UPDATE", []string{"accounts multi(a join)", "wallets multi(a join)"}},
		{"SELECT * FROM accounts a LEFT JOIN wallets w ON w.id = a.wallet_id WHERE a.id = $1 FOR UPDATE OF a", []string{"accounts one key=id/$1"}},
		// Writes.
		{"UPDATE accounts SET n = n + 1 WHERE id = $3", []string{"accounts one key=id/$3"}},
		{"UPDATE accounts SET n = 0 WHERE id = ANY($1)", []string{"accounts multi(= ANY(...))"}},
		{"DELETE FROM accounts WHERE id IN (SELECT id FROM old)", []string{"accounts multi(IN (sub-query))"}},
		{"DELETE FROM items WHERE (task_id, retry) IN (SELECT t, r FROM input)", []string{"items multi(IN (sub-query))"}},
		{"DELETE FROM items WHERE (task_id, retry) IN (($1, $2), ($3, $4))", []string{"items multi(IN (...))"}},
		{"UPDATE accounts a SET n = 0 FROM moves m WHERE a.id = m.account_id", []string{"accounts multi(a join)"}},
		{"UPDATE accounts a SET n = v.n FROM (VALUES ($1::bigint, $2::int), ($3, $4)) v(id, n) WHERE a.id = v.id", []string{"accounts multi(a join with a list of keys)"}},
		{"UPDATE accounts a SET n = 0 FROM unnest($1::bigint[]) k(id) WHERE a.id = k.id", []string{"accounts multi(a join with a list of keys)"}},
		{"DELETE FROM accounts a USING (SELECT unnest($1::bigint[]) AS id) k WHERE a.id = k.id", []string{"accounts multi(a join with a list of keys)"}},
		{"DELETE FROM sessions", []string{"sessions multi(no WHERE clause)"}},
		{"INSERT INTO c (k, n) VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c one"}},
		{"INSERT INTO c (k, n) VALUES ($1, 1), ($2, 1) ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(several VALUES rows)"}},
		{"INSERT INTO c (k, n) SELECT k, 1 FROM src ORDER BY k ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT) order=k"}},
		// The SELECT reads a CTE or sub-select: its order, or its one row.
		{"WITH i AS (SELECT unnest($1::text[]) AS k ORDER BY k) INSERT INTO c (k, n) SELECT i.k, 1 FROM i WHERE i.k <> '' ON CONFLICT (k) DO UPDATE SET n = c.n + 1",
			[]string{"c multi(the rows of a SELECT) order=k"}},
		{"INSERT INTO c (k, n) SELECT s.k, 1 FROM (SELECT k FROM src ORDER BY k) s ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT) order=k"}},
		{"WITH i AS (SELECT unnest($1::text[]) AS k) INSERT INTO c (k, n) SELECT i.k, 1 FROM i ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT)"}},
		{"WITH i AS (SELECT k FROM src ORDER BY k) INSERT INTO c (k, n) SELECT i.k, count(*) FROM i GROUP BY i.k ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT)"}},
		{"WITH i AS (SELECT k FROM src ORDER BY k) INSERT INTO c (k, n) SELECT i.k, 1 FROM i JOIN other o ON o.k = i.k ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT)"}},
		{"WITH i AS (SELECT $1::text AS k), f AS (SELECT k FROM i WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.held)) INSERT INTO c (k, n) SELECT f.k, 1 FROM f ON CONFLICT (k) DO UPDATE SET n = c.n + 1",
			[]string{"c one"}},
		{"WITH i AS (SELECT k FROM src) INSERT INTO c (k, n) SELECT i.k, 1 FROM i ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT)"}},
		{"WITH RECURSIVE r AS (SELECT 1 AS k UNION ALL SELECT k + 1 FROM r WHERE k < 9) INSERT INTO c (k, n) SELECT r.k, 1 FROM r ON CONFLICT (k) DO UPDATE SET n = c.n + 1", []string{"c multi(the rows of a SELECT)"}},
		// The ordered lock first, in a CTE: the UPDATE's rows are taken already.
		{"WITH l AS (SELECT id FROM accounts WHERE id = ANY($1) ORDER BY id FOR UPDATE) UPDATE accounts SET n = 0 WHERE id IN (SELECT id FROM l)",
			[]string{"accounts multi(= ANY(...)) order=id", "accounts multi(IN (sub-query)) prelocked"}},
		{"UPDATE jobs SET state = 'running' WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' FOR UPDATE SKIP LOCKED)",
			[]string{"jobs multi(equality on state, not a key) ordered-by-plan", "jobs multi(IN (sub-query)) prelocked"}},
		// Per-row advisory locks.
		{"SELECT pg_advisory_xact_lock(id) FROM accounts WHERE tenant = $1", []string{"advisory multi(equality on tenant, not a key) key=/$1 ordered-by-plan"}},
		{"SELECT pg_advisory_xact_lock(id) FROM accounts WHERE tenant = $1 ORDER BY id", []string{"advisory multi(equality on tenant, not a key) key=/$1 order=id ordered-by-plan"}},
		{"SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) k", []string{"advisory multi(no WHERE clause)"}},
		{"WITH i AS (SELECT unnest($1::bigint[]) AS k ORDER BY k) SELECT pg_advisory_xact_lock(i.k) FROM i", []string{"advisory multi(no WHERE clause) order=k"}},
		{"WITH i AS (SELECT unnest($1::bigint[]) AS k) SELECT pg_advisory_xact_lock(i.k) FROM i", []string{"advisory multi(no WHERE clause)"}},
		{"WITH i AS (SELECT $1::bigint AS k) SELECT pg_advisory_xact_lock(i.k) FROM i", []string{"advisory one"}},
		{"SELECT pg_advisory_xact_lock($1)", []string{"advisory one"}},
	}
	for _, tt := range tests {
		a := Analyze(tt.sql)
		if a.Err != nil {
			t.Errorf("Analyze(%q): %v", tt.sql, a.Err)
			continue
		}
		got := renderRows(a.Effects)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Analyze(%q) rows =\n\t%q\nwant\n\t%q", tt.sql, got, tt.want)
		}
	}
}

// TestGateShape checks which predicates name exactly the rows their
// parameters' values name (a parent row that can gate, see
// RowSet.GateShape), their set parameters, and the conflict-target
// columns an upsert fills with one parameter.
func TestGateShape(t *testing.T) {
	tests := []struct {
		sql                        string
		shape, eqParams, setParams string
	}{
		{"SELECT 1 FROM runs WHERE shard_id = $1 AND run_id = $2 FOR UPDATE", "run_id=$ AND shard_id=$", "run_id=2,shard_id=1", ""},
		{"SELECT 1 FROM nodes WHERE inode = $1 AND kind = 'd' LIMIT 1 FOR UPDATE", "inode=$ AND kind='d' LIMIT 1", "inode=1", ""},
		{"SELECT 1 FROM nodes WHERE inode = ANY($1::bigint[]) FOR UPDATE", "inode=ANY($)", "", "inode=1"},
		{"DELETE FROM timers WHERE run = $1 AND timer_id = ANY($2)", "run=$ AND timer_id=ANY($)", "run=1", "timer_id=2"},
		// Not only equalities and sets of parameters: no gate.
		{"SELECT 1 FROM nodes WHERE inode = $1 AND size > $2 FOR UPDATE", "", "inode=1", ""},
		{"SELECT 1 FROM nodes WHERE inode IN ($1, $2) FOR UPDATE", "", "", ""},
		{"SELECT 1 FROM nodes WHERE inode = ANY('{1,2}') FOR UPDATE", "", "", ""},
		{"SELECT 1 FROM nodes WHERE inode = now() FOR UPDATE", "", "", ""},
		{"SELECT 1 FROM nodes FOR UPDATE", "", "", ""},
		{"SELECT 1 FROM nodes n JOIN dirs d ON d.inode = n.parent WHERE n.inode = $1 FOR UPDATE OF n", "", "inode=1", ""},
		{"SELECT 1 FROM nodes WHERE inode IN (SELECT inode FROM edges WHERE parent = $1) FOR UPDATE", "", "", ""},
		// An upsert's rows hold the parameters of its conflict target.
		{"INSERT INTO ev (task_id, k, v) SELECT $1::bigint, i.k, i.v FROM unnest($2::text[], $3::text[]) i(k, v) ON CONFLICT (task_id, k) DO UPDATE SET v = EXCLUDED.v", "", "task_id=1", ""},
		{"INSERT INTO ev (task_id, k, v) VALUES ($1, $2, 1), ($1, $3, 2) ON CONFLICT (task_id, k) DO UPDATE SET v = EXCLUDED.v", "", "task_id=1", ""},
		{"INSERT INTO ev (task_id, k, v) VALUES ($1, $2, 1), ($4, $3, 2) ON CONFLICT (task_id, k) DO UPDATE SET v = EXCLUDED.v", "", "", ""},
		// A column outside the conflict target says nothing of the row
		// that conflicts.
		{"INSERT INTO ev (id, task_id) SELECT unnest($2::bigint[]), $1 ON CONFLICT (id) DO UPDATE SET task_id = EXCLUDED.task_id", "", "", ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.sql)
		if a.Err != nil {
			t.Errorf("Analyze(%q): %v", tt.sql, a.Err)
			continue
		}
		var rs *RowSet
		for i := range a.Effects {
			if a.Effects[i].Kind == Acquire && a.Effects[i].Lock.Kind == Row {
				rs = &a.Effects[i].Rows
				break
			}
		}
		if rs == nil {
			t.Errorf("Analyze(%q): no row lock", tt.sql)
			continue
		}
		if rs.GateShape != tt.shape || rs.EqParams != tt.eqParams || rs.SetParams != tt.setParams {
			t.Errorf("Analyze(%q): shape %q, eq %q, set %q; want %q, %q, %q", tt.sql, rs.GateShape, rs.EqParams, rs.SetParams, tt.shape, tt.eqParams, tt.setParams)
		}
	}
}

func TestIsKeyColumn(t *testing.T) {
	tests := []struct {
		table, col string
		want       bool
	}{
		{"accounts", "id", true},
		{"accounts", "uuid", true},
		{"accounts", "account_id", true},
		{"billing.accounts", "account_id", true},
		{"boxes", "box_id", true},
		{"categories", "category_id", true},
		{"accounts", "user_id", false},
		{"accounts", "ids", false},
	}
	for _, tt := range tests {
		if got := isKeyColumn(tt.table, tt.col); got != tt.want {
			t.Errorf("isKeyColumn(%q, %q) = %v, want %v", tt.table, tt.col, got, tt.want)
		}
	}
}

// TestRowSetsWithSchema checks that a schema decides which equalities pick
// one row: its keys replace the naming convention for the tables it knows.
func TestRowSetsWithSchema(t *testing.T) {
	schema := loadTestSchema(t)
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT * FROM orders WHERE code = $1 FOR UPDATE", []string{"orders one key=code/$1"}},
		{"SELECT * FROM customers WHERE email = $2 FOR UPDATE", []string{"customers one key=email/$2"}},
		{"SELECT * FROM order_items WHERE order_id = $1 AND line = $2 FOR UPDATE", []string{"order_items one key=line/$2"}},
		// Part of a composite key: several rows.
		{"SELECT * FROM order_items WHERE order_id = $1 FOR UPDATE", []string{"order_items multi(equality on order_id, not a key) key=/$1 ordered-by-plan"}},
		// The schema says orders.customer_id is no key, whatever its name.
		{"SELECT * FROM orders WHERE customer_id = $1 FOR UPDATE", []string{"orders multi(equality on customer_id, not a key) key=/$1 ordered-by-plan"}},
		// A table the schema does not know: the convention.
		{"SELECT * FROM accounts WHERE account_id = $1 FOR UPDATE", []string{"accounts one key=account_id/$1"}},
	}
	for _, tt := range tests {
		a := schema.Analyze(tt.sql)
		if a.Err != nil {
			t.Errorf("Analyze(%q): %v", tt.sql, a.Err)
			continue
		}
		if got := renderRows(a.Effects); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Analyze(%q) rows =\n\t%q\nwant\n\t%q", tt.sql, got, tt.want)
		}
	}
}

// TestConcatTemplate checks that a text key built with || keeps its
// placeholder, so that callers can bind it like hashtext($1).
func TestConcatTemplate(t *testing.T) {
	tests := []struct {
		sql, want string
	}{
		{"SELECT pg_advisory_xact_lock(hashtext('wallet:' || $1))", "hashtext(('wallet:' || $1))"},
		{"SELECT pg_advisory_xact_lock(hashtext($2::text || ':' || $1))", "hashtext((($2 || ':') || $1))"},
		{"SELECT pg_advisory_xact_lock(hashtext('a' || 'b'))", ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.sql)
		var got string
		for _, e := range a.Effects {
			if e.Kind == Acquire && e.Lock.Kind == Advisory && len(e.Lock.Key.Parts) == 1 {
				got = e.Lock.Key.Parts[0].Template
			}
		}
		if got != tt.want {
			t.Errorf("Analyze(%q) template = %q, want %q", tt.sql, got, tt.want)
		}
	}
}

// TestJoinOfKeysSchema checks a join through a composite key the schema
// declares: the items of one order by (order_id, line) are one row, the
// items of one order without the line are several.
func TestJoinOfKeysSchema(t *testing.T) {
	schema := loadTestSchema(t)
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT * FROM orders o JOIN order_items i ON i.order_id = o.id AND i.line = $2 WHERE o.id = $1 FOR UPDATE",
			[]string{"orders one key=id/$1", "order_items one"}},
		{"SELECT * FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = $1 FOR UPDATE",
			[]string{"orders one key=id/$1", "order_items multi(a join)"}},
	}
	for _, tt := range tests {
		got := renderRows(schema.Analyze(tt.sql).Effects)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Analyze(%q) rows = %q, want %q", tt.sql, got, tt.want)
		}
	}
}
