package lockmodel

import (
	"strings"
	"testing"
)

// routineSchema has a PL/pgSQL function that calls a SQL one and runs
// constant and non-constant EXECUTE, a recursive function, a procedure,
// and a trigger limited to UPDATE OF one column.
const routineSchema = `
CREATE TABLE payments (id bigint PRIMARY KEY, account_id bigint, amount bigint, note text);
CREATE FUNCTION claim(p_id bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE v int;
BEGIN
  PERFORM pg_advisory_xact_lock(42);
  v := (SELECT count(*) FROM jobs);
  IF v > 0 THEN
    UPDATE totals SET n = n + 1 WHERE id = p_id;
  ELSE
    PERFORM gate(1);
  END IF;
  SELECT id INTO v FROM jobs WHERE id = p_id FOR UPDATE SKIP LOCKED;
  EXECUTE 'UPDATE audit SET n = n + 1';
  EXECUTE format('UPDATE %I SET n = 1', 'hidden');
END $$;
CREATE FUNCTION gate(int) RETURNS void LANGUAGE sql AS 'SELECT id FROM gates WHERE id = $1 FOR UPDATE NOWAIT';
CREATE FUNCTION forever(int) RETURNS void LANGUAGE plpgsql AS $$ BEGIN UPDATE loops SET n = 1; PERFORM forever(1); END $$;
CREATE PROCEDURE settle() LANGUAGE sql AS $$ UPDATE ledgers SET settled = true; $$;
CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE accounts SET n = n + 1 WHERE id = NEW.account_id; RETURN NEW; END $$;
CREATE TRIGGER t_bump AFTER INSERT OR UPDATE OF amount ON payments FOR EACH ROW EXECUTE FUNCTION bump();
CREATE TABLE refunds (id bigint PRIMARY KEY, amount bigint);
CREATE FUNCTION tally() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE totals SET n = n + (SELECT count(*) FROM new_rows);
  PERFORM 1 FROM new_rows FOR UPDATE;
  RETURN NULL; END $$;
CREATE TRIGGER t_tally AFTER INSERT ON refunds REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tally();
`

// effectsText renders the acquisitions of sql as "kind table mode wait
// verb" lines.
func effectsText(s *Schema, sql string) string {
	var lines []string
	for _, e := range s.Analyze(sql).Effects {
		if e.Kind != Acquire {
			continue
		}
		what := e.Lock.Table
		if e.Lock.Kind == Advisory {
			what = "advisory"
		}
		lines = append(lines, e.Lock.Kind.String()+" "+what+" "+e.Lock.Mode.String()+" "+e.Lock.Wait.String()+" | "+e.Verb)
	}
	return strings.Join(lines, "\n")
}

func TestRoutineEffects(t *testing.T) {
	s := NewSchema()
	if err := s.Parse(routineSchema); err != nil {
		t.Fatal(err)
	}
	claim := strings.Join([]string{
		"advisory advisory exclusive block | pg_advisory_xact_lock in claim()",
		"table jobs ACCESS SHARE block | SELECT in claim()",
		"table totals ROW EXCLUSIVE block | UPDATE in claim()",
		"row totals FOR NO KEY UPDATE block | UPDATE in claim()",
		"table gates ROW SHARE block | SELECT ... FOR UPDATE NOWAIT in gate()",
		"row gates FOR UPDATE nowait | SELECT ... FOR UPDATE NOWAIT in gate()",
		"table jobs ROW SHARE block | SELECT ... FOR UPDATE SKIP LOCKED in claim()",
		"row jobs FOR UPDATE skip locked | SELECT ... FOR UPDATE SKIP LOCKED in claim()",
		"table audit ROW EXCLUSIVE block | UPDATE in claim()",
		"row audit FOR NO KEY UPDATE block | UPDATE in claim()",
	}, "\n")
	trigger := "table accounts ROW EXCLUSIVE block | UPDATE in trigger t_bump on payments\n" +
		"row accounts FOR NO KEY UPDATE block | UPDATE in trigger t_bump on payments"
	for _, tc := range []struct{ sql, want string }{
		{"SELECT claim($1)", claim},
		{"SELECT public.claim($1)", claim},
		{"INSERT INTO events (n) VALUES (claim(1))", "table events ROW EXCLUSIVE block | INSERT\n" + claim},
		{"CALL settle()", "table ledgers ROW EXCLUSIVE block | UPDATE in settle()\nrow ledgers FOR NO KEY UPDATE block | UPDATE in settle()"},
		{"INSERT INTO payments (account_id, amount) VALUES ($1, 1)", "table payments ROW EXCLUSIVE block | INSERT\n" + trigger},
		{"UPDATE payments SET amount = 2 WHERE id = $1", "table payments ROW EXCLUSIVE block | UPDATE\nrow payments FOR NO KEY UPDATE block | UPDATE\n" + trigger},
		// UPDATE OF amount: another column fires nothing.
		{"UPDATE payments SET note = 'x' WHERE id = $1", "table payments ROW EXCLUSIVE block | UPDATE\nrow payments FOR NO KEY UPDATE block | UPDATE"},
		{"DELETE FROM payments WHERE id = $1", "table payments ROW EXCLUSIVE block | DELETE\nrow payments FOR UPDATE block | DELETE"},
		{"SELECT unknown_fn(1)", ""},
		// A statement trigger's transition table is its own: no lock on it.
		{"INSERT INTO refunds (id, amount) VALUES ($1, 1)", "table refunds ROW EXCLUSIVE block | INSERT\n" +
			"table totals ROW EXCLUSIVE block | UPDATE in trigger t_tally on refunds\n" +
			"row totals FOR NO KEY UPDATE block | UPDATE in trigger t_tally on refunds"},
	} {
		if got := effectsText(s, tc.sql); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.sql, got, tc.want)
		}
	}
	// Recursion is cut after maxRoutineDepth calls.
	if n := strings.Count(effectsText(s, "SELECT forever(1)"), "row loops"); n != maxRoutineDepth {
		t.Errorf("forever: %d row locks, want %d", n, maxRoutineDepth)
	}
	// The reproducers' setup: dependencies first, as CREATE OR REPLACE.
	defs := s.Definitions("SELECT claim($1)")
	if len(defs) != 2 || !strings.HasPrefix(defs[0], "CREATE OR REPLACE FUNCTION gate(int)") || !strings.HasPrefix(defs[1], "CREATE OR REPLACE FUNCTION claim(") {
		t.Errorf("definitions of claim: %q", defs)
	}
	defs = s.Definitions("INSERT INTO payments (account_id, amount) VALUES ($1, 1)")
	if len(defs) != 2 || !strings.HasPrefix(defs[0], "CREATE OR REPLACE FUNCTION bump()") || !strings.HasPrefix(defs[1], "CREATE OR REPLACE TRIGGER t_bump") {
		t.Errorf("definitions of the insert: %q", defs)
	}
	// A later migration's DROP wins.
	if err := s.Parse("DROP TRIGGER t_bump ON payments; DROP FUNCTION claim(bigint);"); err != nil {
		t.Fatal(err)
	}
	if got := effectsText(s, "SELECT claim($1)"); got != "" {
		t.Errorf("dropped function still takes locks:\n%s", got)
	}
	if got := effectsText(s, "INSERT INTO payments (account_id, amount) VALUES ($1, 1)"); got != "table payments ROW EXCLUSIVE block | INSERT" {
		t.Errorf("dropped trigger still fires:\n%s", got)
	}
}

// TestRoutineArguments checks that a body's advisory key names what the
// call passes: the caller's $n (which the Go call site binds) or constant,
// and an unknown key otherwise, never the caller's own $k.
func TestRoutineArguments(t *testing.T) {
	s := NewSchema()
	if err := s.Parse(`
CREATE FUNCTION lock_tenant(p_kind int, p_tenant bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_advisory_xact_lock(p_kind, p_tenant::int); END $$;
CREATE FUNCTION lock_key(bigint) RETURNS void LANGUAGE sql AS 'SELECT pg_advisory_xact_lock($1)';
`); err != nil {
		t.Fatal(err)
	}
	for sql, want := range map[string][]KeyPart{
		"SELECT lock_tenant(3, $2)":        {{Const: "3"}, {Param: 2}},
		"SELECT lock_key($3)":              {{Param: 3}},
		"SELECT lock_key(42)":              {{Const: "42"}},
		"SELECT lock_key(x) FROM t":        {{}},
		"SELECT 1 FROM t WHERE lock_key()": {{}},
	} {
		var got []KeyPart
		for _, e := range s.Analyze(sql).Effects {
			if e.Kind == Acquire && e.Lock.Kind == Advisory {
				got = e.Lock.Key.Parts
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: key %+v, want %+v", sql, got, want)
			continue
		}
		for i := range want {
			if got[i].Const != want[i].Const || got[i].Param != want[i].Param {
				t.Errorf("%s: key part %d %+v, want %+v", sql, i, got[i], want[i])
			}
		}
	}
}
