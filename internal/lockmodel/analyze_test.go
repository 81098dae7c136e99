package lockmodel

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// render writes an effect compactly for the test tables:
//
//	table <name> <MODE> [explicit] [nowait]   table lock
//	row <name> <MODE> [nowait|skip locked]    row lock
//	advisory <session|xact> <shared|exclusive> <key> [try]
//	unlock <session|xact> <shared|exclusive> <key>
//	unlock all | begin | commit | rollback | savepoint <n> | rollback to <n> | release <n>
func render(e Effect) string {
	l := e.Lock
	var s string
	switch e.Kind {
	case Acquire:
		switch l.Kind {
		case Table:
			s = "table " + l.Table + " " + l.Mode.String()
			if !l.Implicit {
				s += " explicit"
			}
		case Row:
			s = "row " + l.Table + " " + l.Mode.String()
		case Advisory:
			s = "advisory " + renderAdvisory(l)
		default:
			s = "acquire " + l.String()
		}
		switch l.Wait {
		case NoWait:
			s += " nowait"
		case SkipLocked:
			s += " skip locked"
		case Try:
			s += " try"
		}
		return s
	case Unlock:
		return "unlock " + renderAdvisory(l)
	case UnlockAll:
		return "unlock all"
	case Savepoint:
		return "savepoint " + e.Name
	case RollbackTo:
		return "rollback to " + e.Name
	case ReleaseSavepoint:
		return "release " + e.Name
	case CreateTemp:
		return "create temp " + e.Name
	}
	return e.Kind.String()
}

func renderAdvisory(l Lock) string {
	scope := "xact"
	if l.Scope == Session {
		scope = "session"
	}
	return scope + " " + l.Mode.String() + " " + l.Key.String()
}

func renderAll(effects []Effect) []string {
	out := []string{}
	for _, e := range effects {
		out = append(out, render(e))
	}
	return out
}

// analyzeCases is the specification of Analyze by example. It also seeds
// FuzzAnalyze.
var analyzeCases = []struct {
	name string
	sql  string
	want []string
}{
	// Plain reads and SELECT ... FOR.
	{"select", "SELECT * FROM accounts WHERE id = 1", []string{"table accounts ACCESS SHARE"}},
	{"for update", "SELECT id FROM subscriptions WHERE account_id = 1 FOR UPDATE",
		[]string{"table subscriptions ROW SHARE", "row subscriptions FOR UPDATE"}},
	{"for no key update", "SELECT id FROM m WHERE id = 1 FOR NO KEY UPDATE", []string{"table m ROW SHARE", "row m FOR NO KEY UPDATE"}},
	{"for share", "SELECT id FROM m WHERE id = 1 FOR SHARE", []string{"table m ROW SHARE", "row m FOR SHARE"}},
	{"for key share", "SELECT id FROM m WHERE id = 1 FOR KEY SHARE", []string{"table m ROW SHARE", "row m FOR KEY SHARE"}},
	{"join locks every table (T4g)",
		"SELECT s.id FROM subscriptions s JOIN usage_records u ON u.account_id = s.account_id WHERE s.account_id = 1 FOR UPDATE",
		[]string{"table subscriptions ROW SHARE", "table usage_records ROW SHARE", "row subscriptions FOR UPDATE", "row usage_records FOR UPDATE"}},
	{"OF alias (T4g)",
		"SELECT s.id FROM subscriptions s JOIN usage_records u ON u.account_id = s.account_id FOR UPDATE OF s",
		[]string{"table subscriptions ROW SHARE", "table usage_records ACCESS SHARE", "row subscriptions FOR UPDATE"}},
	{"OF table name", "SELECT * FROM a, b WHERE a.id = b.id FOR SHARE OF b",
		[]string{"table a ACCESS SHARE", "table b ROW SHARE", "row b FOR SHARE"}},
	{"nowait: table lock still waits (T7d)", "SELECT id FROM accounts WHERE id = 1 FOR UPDATE NOWAIT",
		[]string{"table accounts ROW SHARE", "row accounts FOR UPDATE nowait"}},
	{"skip locked", "SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED",
		[]string{"table jobs ROW SHARE", "row jobs FOR UPDATE skip locked"}},
	{"strongest clause wins", "SELECT * FROM a FOR SHARE FOR UPDATE OF a SKIP LOCKED",
		[]string{"table a ROW SHARE", "row a FOR UPDATE skip locked"}},
	{"nowait beats skip locked", "SELECT * FROM a FOR UPDATE SKIP LOCKED FOR KEY SHARE NOWAIT",
		[]string{"table a ROW SHARE", "row a FOR UPDATE nowait"}},
	{"one clause per table", "SELECT * FROM a, b FOR SHARE OF a FOR UPDATE OF b NOWAIT",
		[]string{"table a ROW SHARE", "table b ROW SHARE", "row a FOR SHARE", "row b FOR UPDATE nowait"}},
	{"self-join locks once", "SELECT * FROM t x JOIN t y ON x.p = y.id FOR UPDATE",
		[]string{"table t ROW SHARE", "row t FOR UPDATE"}},
	{"self-join OF one side", "SELECT * FROM t x JOIN t y ON x.p = y.id FOR UPDATE OF y",
		[]string{"table t ROW SHARE", "row t FOR UPDATE"}},
	{"sub-select in FROM inherits", "SELECT * FROM (SELECT * FROM jobs WHERE state = 'q') j FOR UPDATE",
		[]string{"table jobs ROW SHARE", "row jobs FOR UPDATE"}},
	{"OF sub-select alias", "SELECT * FROM accounts a, (SELECT * FROM jobs JOIN runs ON true) j FOR NO KEY UPDATE OF j",
		[]string{"table accounts ACCESS SHARE", "table jobs ROW SHARE", "table runs ROW SHARE", "row jobs FOR NO KEY UPDATE", "row runs FOR NO KEY UPDATE"}},
	{"sub-select in FROM with own clause", "SELECT * FROM (SELECT * FROM jobs FOR UPDATE SKIP LOCKED) j JOIN accounts a ON a.id = j.account_id",
		[]string{"table jobs ROW SHARE", "table accounts ACCESS SHARE", "row jobs FOR UPDATE skip locked"}},
	{"sub-link is not reached by FOR UPDATE", "SELECT * FROM accounts WHERE id IN (SELECT account_id FROM subscriptions) FOR UPDATE",
		[]string{"table accounts ROW SHARE", "table subscriptions ACCESS SHARE", "row accounts FOR UPDATE"}},
	{"sub-link with own clause runs first", "SELECT * FROM a WHERE id = (SELECT id FROM b LIMIT 1 FOR SHARE) FOR UPDATE",
		[]string{"table a ROW SHARE", "table b ROW SHARE", "row b FOR SHARE", "row a FOR UPDATE"}},
	{"sub-link in target list", "SELECT (SELECT max(id) FROM a) FROM b", []string{"table b ACCESS SHARE", "table a ACCESS SHARE"}},
	{"union arms", "SELECT id FROM a UNION ALL SELECT id FROM b", []string{"table a ACCESS SHARE", "table b ACCESS SHARE"}},
	{"lateral and exists", "SELECT * FROM a, LATERAL (SELECT * FROM b WHERE b.a = a.id) s WHERE EXISTS (SELECT 1 FROM c)",
		[]string{"table a ACCESS SHARE", "table b ACCESS SHARE", "table c ACCESS SHARE"}},
	{"tablesample", "SELECT * FROM big TABLESAMPLE SYSTEM (1) FOR SHARE", []string{"table big ROW SHARE", "row big FOR SHARE"}},

	// CTEs.
	{"CTE name is not a table", "WITH x AS (SELECT * FROM accounts) SELECT * FROM x", []string{"table accounts ACCESS SHARE"}},
	{"CTE shadows a table", "WITH accounts AS (SELECT 1 AS id) SELECT * FROM accounts", []string{}},
	{"CTE body reads the real table", "WITH t AS (SELECT * FROM t) SELECT * FROM t", []string{"table t ACCESS SHARE"}},
	{"qualified name is never a CTE", "WITH t AS (SELECT 1) SELECT * FROM public.t, t", []string{"table t ACCESS SHARE"}},
	{"later CTE sees earlier one", "WITH a AS (SELECT 1), b AS (SELECT * FROM a) SELECT * FROM b", []string{}},
	{"recursive CTE", "WITH RECURSIVE r AS (SELECT id FROM tree WHERE id = 1 UNION ALL SELECT t.id FROM tree t JOIN r ON t.parent = r.id) SELECT * FROM r",
		[]string{"table tree ACCESS SHARE"}},
	{"FOR UPDATE does not reach a CTE", "WITH x AS (SELECT * FROM a) SELECT * FROM x JOIN b ON true FOR UPDATE",
		[]string{"table a ACCESS SHARE", "table b ROW SHARE", "row b FOR UPDATE"}},
	{"queue CTE then UPDATE", "WITH j AS (SELECT id FROM jobs LIMIT 1 FOR UPDATE SKIP LOCKED) UPDATE jobs SET state = 'r' FROM j WHERE jobs.id = j.id",
		[]string{"table jobs ROW EXCLUSIVE", "row jobs FOR UPDATE skip locked", "row jobs FOR NO KEY UPDATE"}},
	{"data-modifying CTE DELETE", "WITH d AS (DELETE FROM queue WHERE id = 1 RETURNING *) INSERT INTO done SELECT * FROM d",
		[]string{"table queue ROW EXCLUSIVE", "table done ROW EXCLUSIVE", "row queue FOR UPDATE"}},
	{"data-modifying CTE UPDATE", "WITH u AS (UPDATE accounts SET balance = 0 WHERE id = 1 RETURNING id) SELECT * FROM u",
		[]string{"table accounts ROW EXCLUSIVE", "row accounts FOR NO KEY UPDATE"}},

	// UPDATE, DELETE, INSERT, MERGE.
	{"update", "UPDATE accounts SET balance = balance + 1 WHERE id = 1",
		[]string{"table accounts ROW EXCLUSIVE", "row accounts FOR NO KEY UPDATE"}},
	{"update from: only the target is row-locked (T4h)", "UPDATE subscriptions s SET plan = 'x' FROM usage_records u WHERE u.account_id = s.account_id",
		[]string{"table subscriptions ROW EXCLUSIVE", "table usage_records ACCESS SHARE", "row subscriptions FOR NO KEY UPDATE"}},
	{"update where in sub-query (T4h)", "UPDATE subscriptions SET plan = 'x' WHERE account_id IN (SELECT account_id FROM usage_records WHERE units > 0)",
		[]string{"table subscriptions ROW EXCLUSIVE", "table usage_records ACCESS SHARE", "row subscriptions FOR NO KEY UPDATE"}},
	{"update where in skip-locked sub-query", "UPDATE jobs SET state = 'running' WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' LIMIT 10 FOR UPDATE SKIP LOCKED)",
		[]string{"table jobs ROW EXCLUSIVE", "row jobs FOR UPDATE skip locked", "row jobs FOR NO KEY UPDATE"}},
	{"update where in locking sub-query of another table", "UPDATE jobs SET state = 'r' WHERE id IN (SELECT job_id FROM queue FOR UPDATE)",
		[]string{"table jobs ROW EXCLUSIVE", "table queue ROW SHARE", "row queue FOR UPDATE", "row jobs FOR NO KEY UPDATE"}},
	{"delete", "DELETE FROM audit WHERE id = 1", []string{"table audit ROW EXCLUSIVE", "row audit FOR UPDATE"}},
	{"delete using", "DELETE FROM a USING b WHERE a.id = b.id", []string{"table a ROW EXCLUSIVE", "table b ACCESS SHARE", "row a FOR UPDATE"}},
	{"insert", "INSERT INTO audit (id, v) VALUES (10, 0)", []string{"table audit ROW EXCLUSIVE"}},
	{"insert on conflict do nothing", "INSERT INTO audit (id, v) VALUES (10, 0) ON CONFLICT DO NOTHING", []string{"table audit ROW EXCLUSIVE"}},
	{"insert on conflict do update", "INSERT INTO audit (id, v) VALUES (10, 0) ON CONFLICT (id) DO UPDATE SET v = excluded.v",
		[]string{"table audit ROW EXCLUSIVE", "row audit FOR UPDATE"}},
	{"insert select", "INSERT INTO archive SELECT * FROM audit WHERE v > 0", []string{"table archive ROW EXCLUSIVE", "table audit ACCESS SHARE"}},
	{"insert select from itself", "INSERT INTO audit SELECT id + 100, v FROM audit", []string{"table audit ROW EXCLUSIVE"}},
	{"insert values sub-query", "INSERT INTO a (x) VALUES ((SELECT max(x) FROM b))", []string{"table a ROW EXCLUSIVE", "table b ACCESS SHARE"}},
	{"merge", "MERGE INTO accounts a USING incoming i ON a.id = i.id WHEN MATCHED THEN UPDATE SET balance = i.balance WHEN NOT MATCHED THEN INSERT (id, balance) VALUES (i.id, i.balance)",
		[]string{"table accounts ROW EXCLUSIVE", "table incoming ACCESS SHARE", "row accounts FOR UPDATE"}},
	{"merge from sub-select", "MERGE INTO a USING (SELECT * FROM b) s ON a.id = s.id WHEN MATCHED THEN DELETE",
		[]string{"table a ROW EXCLUSIVE", "table b ACCESS SHARE", "row a FOR UPDATE"}},

	// LOCK TABLE, every mode.
	{"lock access share", "LOCK TABLE ta IN ACCESS SHARE MODE", []string{"table ta ACCESS SHARE explicit"}},
	{"lock row share", "LOCK TABLE ta IN ROW SHARE MODE", []string{"table ta ROW SHARE explicit"}},
	{"lock row exclusive", "LOCK TABLE ta IN ROW EXCLUSIVE MODE", []string{"table ta ROW EXCLUSIVE explicit"}},
	{"lock share update exclusive", "LOCK TABLE ta IN SHARE UPDATE EXCLUSIVE MODE", []string{"table ta SHARE UPDATE EXCLUSIVE explicit"}},
	{"lock share", "LOCK TABLE ta IN SHARE MODE", []string{"table ta SHARE explicit"}},
	{"lock share row exclusive", "LOCK TABLE ta IN SHARE ROW EXCLUSIVE MODE", []string{"table ta SHARE ROW EXCLUSIVE explicit"}},
	{"lock exclusive", "LOCK TABLE ta IN EXCLUSIVE MODE", []string{"table ta EXCLUSIVE explicit"}},
	{"lock access exclusive", "LOCK TABLE ta IN ACCESS EXCLUSIVE MODE", []string{"table ta ACCESS EXCLUSIVE explicit"}},
	{"lock without mode", "LOCK ta", []string{"table ta ACCESS EXCLUSIVE explicit"}},
	{"lock several tables", "LOCK TABLE ta, public.tb, s.tc IN SHARE ROW EXCLUSIVE MODE",
		[]string{"table ta SHARE ROW EXCLUSIVE explicit", "table tb SHARE ROW EXCLUSIVE explicit", "table s.tc SHARE ROW EXCLUSIVE explicit"}},
	{"lock nowait", "LOCK TABLE ONLY ta IN ROW SHARE MODE NOWAIT", []string{"table ta ROW SHARE explicit nowait"}},

	// DDL.
	{"truncate", "TRUNCATE ta, tb", []string{"table ta ACCESS EXCLUSIVE explicit", "table tb ACCESS EXCLUSIVE explicit"}},
	{"alter table", "ALTER TABLE ta ADD COLUMN extra int", []string{"table ta ACCESS EXCLUSIVE explicit"}},
	{"alter table rename", "ALTER TABLE ta RENAME TO tz; ALTER TABLE s.tb RENAME COLUMN v TO w; ALTER TABLE tc SET SCHEMA s",
		[]string{"table ta ACCESS EXCLUSIVE explicit", "table s.tb ACCESS EXCLUSIVE explicit", "table tc ACCESS EXCLUSIVE explicit"}},
	{"drop table", "DROP TABLE IF EXISTS ta, s.tb", []string{"table ta ACCESS EXCLUSIVE explicit", "table s.tb ACCESS EXCLUSIVE explicit"}},
	{"create index", "CREATE INDEX ta_v ON ta (v)", []string{"table ta SHARE explicit"}},
	{"create index concurrently", "CREATE INDEX CONCURRENTLY ta_v ON ta (v)", []string{"table ta SHARE UPDATE EXCLUSIVE explicit"}},
	{"refresh materialized view", "REFRESH MATERIALIZED VIEW mv", []string{"table mv ACCESS EXCLUSIVE explicit"}},
	{"refresh concurrently", "REFRESH MATERIALIZED VIEW CONCURRENTLY mv", []string{"table mv EXCLUSIVE explicit"}},
	{"other statements", "SET lock_timeout = '1s'; SHOW lock_timeout; CREATE TABLE x (id int PRIMARY KEY); DROP INDEX ta_v", []string{}},

	// Advisory functions.
	{"pg_advisory_lock", "SELECT pg_advisory_lock(42)", []string{"advisory session exclusive (42)"}},
	{"pg_advisory_lock_shared", "SELECT pg_advisory_lock_shared(42)", []string{"advisory session shared (42)"}},
	{"pg_advisory_xact_lock", "SELECT pg_advisory_xact_lock(42)", []string{"advisory xact exclusive (42)"}},
	{"pg_advisory_xact_lock_shared", "SELECT pg_advisory_xact_lock_shared(42)", []string{"advisory xact shared (42)"}},
	{"pg_try_advisory_lock", "SELECT pg_try_advisory_lock(42)", []string{"advisory session exclusive (42) try"}},
	{"pg_try_advisory_lock_shared", "SELECT pg_try_advisory_lock_shared(42)", []string{"advisory session shared (42) try"}},
	{"pg_try_advisory_xact_lock", "SELECT pg_try_advisory_xact_lock(42)", []string{"advisory xact exclusive (42) try"}},
	{"pg_try_advisory_xact_lock_shared", "SELECT pg_try_advisory_xact_lock_shared(42)", []string{"advisory xact shared (42) try"}},
	{"pg_advisory_unlock", "SELECT pg_advisory_unlock(42)", []string{"unlock session exclusive (42)"}},
	{"pg_advisory_unlock_shared", "SELECT pg_advisory_unlock_shared(42)", []string{"unlock session shared (42)"}},
	{"pg_advisory_unlock_all", "SELECT pg_advisory_unlock_all()", []string{"unlock all"}},
	{"pg_catalog qualifier", "SELECT pg_catalog.pg_advisory_lock(1)", []string{"advisory session exclusive (1)"}},
	{"other schema is not advisory", "SELECT myschema.pg_advisory_lock(1)", []string{}},
	{"two-argument key", "SELECT pg_advisory_xact_lock(1, 2)", []string{"advisory xact exclusive (1, 2)"}},
	{"negative constant", "SELECT pg_advisory_lock(-5)", []string{"advisory session exclusive (-5)"}},
	{"unary minus", "SELECT pg_advisory_lock(- 5), pg_advisory_lock(-(5)), pg_advisory_lock(-'5'::bigint), pg_advisory_lock(- -5)",
		[]string{"advisory session exclusive (-5)", "advisory session exclusive (-5)", "advisory session exclusive (-5)", "advisory session exclusive (5)"}},
	{"bigint constant", "SELECT pg_advisory_lock(9223372036854775807), pg_advisory_lock(-9223372036854775808)",
		[]string{"advisory session exclusive (9223372036854775807)", "advisory session exclusive (-9223372036854775808)"}},
	{"hex constant", "SELECT pg_advisory_lock(0x10), pg_advisory_lock(1_000)",
		[]string{"advisory session exclusive (16)", "advisory session exclusive (1000)"}},
	{"parameter", "SELECT pg_advisory_xact_lock($1)", []string{"advisory xact exclusive ($1)"}},
	{"cast parameter", "SELECT pg_advisory_xact_lock($1::bigint), pg_advisory_xact_lock(CAST($2 AS int8))",
		[]string{"advisory xact exclusive ($1)", "advisory xact exclusive ($2)"}},
	{"cast constant", "SELECT pg_advisory_lock(7::bigint), pg_advisory_lock('7'::int8), pg_advisory_lock('x'::text)",
		[]string{"advisory session exclusive (7)", "advisory session exclusive (7)", "advisory session exclusive ('x')"}},
	{"hashtext", "SELECT pg_advisory_xact_lock(hashtext('billing'))", []string{"advisory xact exclusive (hashtext('billing'))"}},
	{"hash functions of constants", "SELECT pg_advisory_lock(pg_catalog.hashtextextended('it''s', 0)), pg_advisory_lock(hashtext('a'), hashtext('b'))",
		[]string{"advisory session exclusive (hashtextextended('it''s', 0))", "advisory session exclusive (hashtext('a'), hashtext('b'))"}},
	{"string constant", "SELECT pg_advisory_lock('42')", []string{"advisory session exclusive ('42')"}},
	{"column argument is unknown", "SELECT pg_advisory_xact_lock(id) FROM jobs",
		[]string{"table jobs ACCESS SHARE", "advisory xact exclusive (?)"}},
	{"expressions are unknown", "SELECT pg_advisory_lock(id + 1, 2), pg_advisory_lock(hashtext(name)), pg_advisory_lock(pg_backend_pid()) FROM t",
		[]string{"table t ACCESS SHARE", "advisory session exclusive (?, 2)", "advisory session exclusive (?)", "advisory session exclusive (?)"}},
	{"functions of parameters are templates", "SELECT pg_advisory_xact_lock(hashtext($1::text)), pg_advisory_lock(hashtextextended($2, 0), 7)",
		[]string{"advisory xact exclusive (hashtext($1))", "advisory session exclusive (hashtextextended($2, 0), 7)"}},
	{"temporary table", "CREATE TEMP TABLE tmp_slots (id int) ON COMMIT DROP", []string{"create temp tmp_slots"}},
	{"temporary table as select", "CREATE TEMPORARY TABLE tmp_jobs ON COMMIT DROP AS SELECT id FROM jobs WHERE done FOR UPDATE",
		[]string{"create temp tmp_jobs", "table jobs ROW SHARE", "row jobs FOR UPDATE"}},
	{"ordinary table is no temporary one", "CREATE TABLE slots (id int)", []string{}},
	{"NULL key locks nothing", "SELECT pg_advisory_lock(NULL), pg_advisory_lock(NULL::bigint, 1)", []string{}},
	{"advisory in WHERE", "SELECT * FROM jobs WHERE pg_try_advisory_xact_lock(id) LIMIT 1",
		[]string{"table jobs ACCESS SHARE", "advisory xact exclusive (?) try"}},
	{"advisory in FROM", "SELECT * FROM pg_advisory_lock(1)", []string{"advisory session exclusive (1)"}},
	{"advisory nested", "SELECT coalesce(pg_advisory_unlock(1)::text, 'x') FROM (SELECT pg_advisory_lock(1)) s",
		[]string{"advisory session exclusive (1)", "unlock session exclusive (1)"}},
	{"advisory before own row locks", "SELECT pg_advisory_xact_lock(id) FROM jobs FOR UPDATE",
		[]string{"table jobs ROW SHARE", "advisory xact exclusive (?)", "row jobs FOR UPDATE"}},
	{"advisory in UPDATE", "UPDATE t SET v = 1 WHERE pg_try_advisory_xact_lock(1, $1::int)",
		[]string{"table t ROW EXCLUSIVE", "advisory xact exclusive (1, $1) try", "row t FOR NO KEY UPDATE"}},
	{"wrong argument count is no call", "SELECT pg_advisory_lock(), pg_advisory_lock(1, 2, 3), pg_advisory_unlock_all(1)", []string{}},

	// Transaction control.
	{"begin commit", "BEGIN; SELECT 1; COMMIT", []string{"begin", "commit"}},
	{"start transaction end", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE; END", []string{"begin", "commit"}},
	{"rollback abort", "ROLLBACK; ABORT", []string{"rollback", "rollback"}},
	{"savepoints", "BEGIN; SAVEPOINT sp; LOCK TABLE ta IN ACCESS EXCLUSIVE MODE; ROLLBACK TO SAVEPOINT sp; ROLLBACK TO sp; RELEASE SAVEPOINT sp; RELEASE sp; COMMIT",
		[]string{"begin", "savepoint sp", "table ta ACCESS EXCLUSIVE explicit", "rollback to sp", "rollback to sp", "release sp", "release sp", "commit"}},
	{"commit and chain", "COMMIT AND CHAIN", []string{"commit", "begin"}},
	{"rollback and chain", "ROLLBACK AND CHAIN", []string{"rollback", "begin"}},
	{"prepare transaction", "BEGIN; UPDATE t SET v = 1; PREPARE TRANSACTION 'x'; COMMIT PREPARED 'x'",
		[]string{"begin", "table t ROW EXCLUSIVE", "row t FOR NO KEY UPDATE", "commit"}},
	{"multi-statement transaction", "BEGIN; SELECT id FROM accounts WHERE id = 1 FOR UPDATE; UPDATE audit SET v = v + 1 WHERE id = 1; COMMIT",
		[]string{"begin", "table accounts ROW SHARE", "row accounts FOR UPDATE", "table audit ROW EXCLUSIVE", "row audit FOR NO KEY UPDATE", "commit"}},

	// Names.
	{"quoted identifier kept", `SELECT * FROM "Foo" JOIN "Other"."Bar" ON true JOIN FOO ON true`,
		[]string{"table Foo ACCESS SHARE", "table Other.Bar ACCESS SHARE", "table foo ACCESS SHARE"}},
	{"public.t is t", "SELECT * FROM public.t JOIN t ON true FOR UPDATE", []string{"table t ROW SHARE", "row t FOR UPDATE"}},
	{"other schema kept", "UPDATE billing.invoices SET paid = true", []string{"table billing.invoices ROW EXCLUSIVE", "row billing.invoices FOR NO KEY UPDATE"}},

	// No statements.
	{"empty", "", []string{}},
	{"whitespace", " \n\t ", []string{}},
	{"comments only", "-- nothing\n/* at all */ ;", []string{}},
}

func TestAnalyze(t *testing.T) {
	for _, tt := range analyzeCases {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.sql)
			if a.Err != nil {
				t.Fatalf("Analyze(%q): %v", tt.sql, a.Err)
			}
			if got := renderAll(a.Effects); !slices.Equal(got, tt.want) {
				t.Errorf("Analyze(%q) =\n\t%q\nwant\n\t%q", tt.sql, got, tt.want)
			}
		})
	}
}

func TestAnalyzeStatements(t *testing.T) {
	for _, tt := range []struct {
		sql   string
		stmts int
		// per effect: statement index
		stmtOf []int
	}{
		{"", 0, nil},
		{"-- x", 0, nil},
		{"SELECT 1", 1, nil},
		{"SELECT 1;;", 1, nil},
		{"BEGIN; SELECT * FROM a FOR UPDATE; SAVEPOINT s; SELECT pg_advisory_lock(1); ROLLBACK TO s; COMMIT", 6,
			[]int{0, 1, 1, 2, 3, 4, 5}},
		{"COMMIT AND CHAIN; LOCK ta", 2, []int{0, 0, 1}},
	} {
		a := Analyze(tt.sql)
		if a.Err != nil || a.Statements != tt.stmts {
			t.Errorf("Analyze(%q): %d statements, err %v; want %d", tt.sql, a.Statements, a.Err, tt.stmts)
			continue
		}
		var got []int
		for _, e := range a.Effects {
			got = append(got, e.Stmt)
		}
		if !slices.Equal(got, tt.stmtOf) {
			t.Errorf("Analyze(%q) statement indexes %v, want %v", tt.sql, got, tt.stmtOf)
		}
	}
}

func TestAnalyzeVerbs(t *testing.T) {
	for _, tt := range []struct {
		sql   string
		verbs []string
	}{
		{"SELECT * FROM t", []string{"SELECT"}},
		{"SELECT * FROM t FOR UPDATE", []string{"SELECT ... FOR UPDATE", "SELECT ... FOR UPDATE"}},
		{"SELECT * FROM t FOR NO KEY UPDATE NOWAIT", []string{"SELECT ... FOR NO KEY UPDATE NOWAIT", "SELECT ... FOR NO KEY UPDATE NOWAIT"}},
		{"SELECT * FROM t FOR SHARE", []string{"SELECT ... FOR SHARE", "SELECT ... FOR SHARE"}},
		{"SELECT * FROM t FOR KEY SHARE SKIP LOCKED", []string{"SELECT ... FOR KEY SHARE SKIP LOCKED", "SELECT ... FOR KEY SHARE SKIP LOCKED"}},
		{"UPDATE jobs SET s = 1 WHERE id IN (SELECT id FROM jobs FOR UPDATE SKIP LOCKED)",
			[]string{"UPDATE", "SELECT ... FOR UPDATE SKIP LOCKED", "UPDATE"}},
		{"UPDATE a SET v = 1 FROM b", []string{"UPDATE", "UPDATE", "UPDATE"}},
		{"DELETE FROM a", []string{"DELETE", "DELETE"}},
		{"INSERT INTO a VALUES (1)", []string{"INSERT"}},
		{"INSERT INTO a VALUES (1) ON CONFLICT (id) DO UPDATE SET v = 2",
			[]string{"INSERT ... ON CONFLICT DO UPDATE", "INSERT ... ON CONFLICT DO UPDATE"}},
		{"INSERT INTO a VALUES (1) ON CONFLICT DO NOTHING", []string{"INSERT ... ON CONFLICT DO NOTHING"}},
		{"MERGE INTO a USING b ON a.id = b.id WHEN MATCHED THEN DELETE", []string{"MERGE", "MERGE", "MERGE"}},
		{"LOCK TABLE ta IN SHARE ROW EXCLUSIVE MODE", []string{"LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE"}},
		{"LOCK ta NOWAIT", []string{"LOCK TABLE ... IN ACCESS EXCLUSIVE MODE NOWAIT"}},
		{"TRUNCATE a", []string{"TRUNCATE"}},
		{"ALTER TABLE a ADD COLUMN b int", []string{"ALTER TABLE"}},
		{"DROP TABLE a", []string{"DROP TABLE"}},
		{"CREATE INDEX ON a (b)", []string{"CREATE INDEX"}},
		{"CREATE INDEX CONCURRENTLY ON a (b)", []string{"CREATE INDEX CONCURRENTLY"}},
		{"REFRESH MATERIALIZED VIEW m", []string{"REFRESH MATERIALIZED VIEW"}},
		{"SELECT pg_catalog.pg_advisory_xact_lock(1), pg_advisory_unlock_all()", []string{"pg_advisory_xact_lock", "pg_advisory_unlock_all"}},
		{"BEGIN; START TRANSACTION; COMMIT; ROLLBACK; SAVEPOINT a; ROLLBACK TO a; RELEASE a; PREPARE TRANSACTION 'x'",
			[]string{"BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK", "SAVEPOINT", "ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT", "PREPARE TRANSACTION"}},
		{"COMMIT AND CHAIN", []string{"COMMIT AND CHAIN", "COMMIT AND CHAIN"}},
	} {
		a := Analyze(tt.sql)
		var got []string
		for _, e := range a.Effects {
			got = append(got, e.Verb)
		}
		if a.Err != nil || !slices.Equal(got, tt.verbs) {
			t.Errorf("Analyze(%q) verbs %q (err %v), want %q", tt.sql, got, a.Err, tt.verbs)
		}
	}
}

// TestAnalyzeLockFields checks the fields that render leaves out.
func TestAnalyzeLockFields(t *testing.T) {
	a := Analyze("SELECT * FROM t FOR UPDATE NOWAIT")
	want := []Lock{
		{Kind: Table, Table: "t", Mode: RowShare, Wait: Block, Implicit: true},
		{Kind: Row, Table: "t", Mode: ForUpdate, Wait: NoWait},
	}
	if len(a.Effects) != len(want) {
		t.Fatalf("got %d effects, want %d", len(a.Effects), len(want))
	}
	for i, e := range a.Effects {
		if e.Kind != Acquire || e.Lock.Kind != want[i].Kind || e.Lock.Table != want[i].Table || e.Lock.Mode != want[i].Mode ||
			e.Lock.Wait != want[i].Wait || e.Lock.Implicit != want[i].Implicit || e.Lock.Scope != Xact {
			t.Errorf("effect %d = %+v, want %+v", i, e.Lock, want[i])
		}
	}
	adv := Analyze("SELECT pg_advisory_lock($2, -1)").Effects[0].Lock
	if adv.Kind != Advisory || adv.Scope != Session || adv.Wait != Block ||
		!slices.Equal(adv.Key.Parts, []KeyPart{{Param: 2}, {Const: "-1"}}) || adv.Key.Parts[0].Known() || !adv.Key.Parts[1].Known() {
		t.Errorf("advisory lock = %+v", adv)
	}
}

func TestAnalyzeParseError(t *testing.T) {
	for _, sql := range []string{"SELECT (", "SELEC 1", "BEGIN; SELECT * FROM t FOR UPDATE; COMMIT; oops", "SELECT * FROM t\x00; LOCK t"} {
		a := Analyze(sql)
		if a.Err == nil {
			t.Errorf("Analyze(%q): no error", sql)
			continue
		}
		if !strings.HasPrefix(a.Err.Error(), "parse SQL: ") {
			t.Errorf("Analyze(%q): error %q not wrapped", sql, a.Err)
		}
		if len(a.Effects) != 0 || a.Statements != 0 {
			t.Errorf("Analyze(%q): %d effects, %d statements with an error", sql, len(a.Effects), a.Statements)
		}
	}
}

func TestAnalyzeCache(t *testing.T) {
	const sql = "SELECT * FROM cache_test FOR UPDATE"
	first := Analyze(sql)
	if Analyze(sql) != first {
		t.Fatal("Analyze returned a new *Analysis for the same string")
	}
	if analyze(nil, sql) == first {
		t.Fatal("analyze must not use the cache")
	}
	// Concurrent first calls for a new string share one result.
	const concurrent = "SELECT * FROM cache_test_concurrent"
	results := make([]*Analysis, 16)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i] = Analyze(concurrent) })
	}
	wg.Wait()
	for _, r := range results {
		if r != results[0] {
			t.Fatal("concurrent Analyze calls returned different results")
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, tt := range analyzeCases {
		f.Add(tt.sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		a := analyze(nil, sql)
		if a.Err != nil && len(a.Effects) != 0 {
			t.Fatalf("error %v with %d effects", a.Err, len(a.Effects))
		}
		for _, e := range a.Effects {
			if e.Stmt < 0 || e.Stmt >= a.Statements {
				t.Errorf("effect %v in statement %d of %d", e, e.Stmt, a.Statements)
			}
			switch e.Kind {
			case Acquire:
				if e.Lock.Mode.Kind() != e.Lock.Kind {
					t.Errorf("mode %v of a %v lock", e.Lock.Mode, e.Lock.Kind)
				}
				if e.Lock.Implicit && e.Lock.Wait != Block {
					t.Errorf("implicit %v does not wait", e.Lock)
				}
				if (e.Lock.Kind == Row || e.Lock.Kind == Table) && e.Lock.Table == "" {
					t.Errorf("%v lock without a table", e.Lock.Kind)
				}
			case Unlock:
				if e.Lock.Kind != Advisory || e.Lock.Scope != Session {
					t.Errorf("unlock of %v", e.Lock)
				}
			}
			if e.Verb == "" {
				t.Errorf("effect %v without a verb", e)
			}
		}
	})
}

var benchSQL = []string{
	"SELECT id FROM subscriptions WHERE account_id = $1 FOR UPDATE",
	"UPDATE jobs SET state = 'running' WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED) RETURNING id",
	"WITH d AS (DELETE FROM queue WHERE id = $1 RETURNING *) INSERT INTO done SELECT * FROM d ON CONFLICT (id) DO UPDATE SET v = excluded.v",
	"BEGIN; SELECT pg_advisory_xact_lock(hashtext('billing')); LOCK TABLE ta IN SHARE ROW EXCLUSIVE MODE; COMMIT",
}

func BenchmarkAnalyze(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			for _, sql := range benchSQL {
				Analyze(sql)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			for _, sql := range benchSQL {
				analyze(nil, sql)
			}
		}
	})
}
