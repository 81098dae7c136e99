package repro

import (
	"fmt"
	"io"
	"strings"
)

// Render writes the script as a POSIX shell script that runs each session in
// its own psql, in the background, and lets pg_sleep order the turns: every
// session takes the locks it holds at once; session k of WaitOrder requests
// the lock it waits for after k+1 steps of $step seconds. n numbers the
// script in the output.
//
// The user runs it against a scratch copy of the schema:
//
//	bins_p1=1 pallets_p1=1 PGDATABASE=scratch sh repro-1.sh
func Render(w io.Writer, n int, sc *Script) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# pglockorder reproducer %d: %s\n#\n", n, sc.Title)
	for _, s := range sc.Sessions {
		fmt.Fprintf(&b, "# session %s replays %s\n", s.Name, s.Path)
		for _, st := range s.Hold {
			fmt.Fprintf(&b, "#   takes %s at %s\n", st.Lock, st.Pos)
		}
		if s.Wait != nil {
			fmt.Fprintf(&b, "#   then waits for %s at %s\n", s.Wait.Lock, s.Wait.Pos)
		}
	}
	fmt.Fprintf(&b, "#\n# Expected: %s.\n", sc.Expect)
	for _, n := range sc.Needs {
		fmt.Fprintf(&b, "# Needs in the database first: %s.\n", n)
	}
	for _, m := range sc.Missing {
		fmt.Fprintf(&b, "# INCOMPLETE: pglockorder does not know %s; add it by hand.\n", m)
	}
	b.WriteString("#\n# Run it against a scratch database with your schema (psql's PG* variables select it):\n#   ")
	for _, v := range sc.Vars {
		fmt.Fprintf(&b, "%s=... ", v.Name)
	}
	fmt.Fprintf(&b, "PGDATABASE=scratch sh repro-%d.sh\n", n)
	if len(sc.Vars) > 0 {
		b.WriteString("# Fill in values that make every session lock the same rows (or keys):\n")
	}
	for _, v := range sc.Vars {
		fmt.Fprintf(&b, ": \"${%s:?fill in %s}\"\n", v.Name, v.Note)
	}
	if len(sc.Setup) > 0 {
		// The database's own functions and triggers the statements run.
		b.WriteString("# The functions and triggers of the schema that these statements run:\n")
		b.WriteString("psql -X -q -v ON_ERROR_STOP=1 <<'SQL' || exit 1\n")
		for _, def := range sc.Setup {
			fmt.Fprintf(&b, "%s;\n", strings.TrimRight(def, "; \n\t"))
		}
		b.WriteString("SQL\n")
	}
	b.WriteString("step=${PGLOCKORDER_STEP:-1}       # seconds between turns\n")
	b.WriteString("timeout=${PGLOCKORDER_TIMEOUT:-10} # lock_timeout in seconds: ends a hang\n")
	b.WriteString("# Each session's output is kept to tell the outcome at the end.\n")
	b.WriteString("out=$(mktemp -d \"${TMPDIR:-/tmp}/pglockorder-repro.XXXXXX\") || exit 1\n")
	b.WriteString("trap 'rm -rf \"$out\"' EXIT\n")
	var args strings.Builder
	args.WriteString(`-X -q -v step="$step" -v timeout="$timeout"`)
	for _, v := range sc.Vars {
		fmt.Fprintf(&args, ` -v %s="$%s"`, v.Name, v.Name)
	}
	turn := map[int]int{}
	for k, i := range sc.WaitOrder {
		turn[i] = k + 1
	}
	for i, s := range sc.Sessions {
		// Query results go nowhere; errors and notices, the outcome, are
		// shown prefixed by the session's name.
		fmt.Fprintf(&b, "\npsql %s -o /dev/null <<'SQL' 2>&1 | tee \"$out/%s\" | sed 's/^/%s: /' &\n", args.String(), s.Name, s.Name)
		fmt.Fprintf(&b, "\\set lt :timeout s\nSET application_name = '%s';\nSET lock_timeout = :'lt';\n", s.Name)
		if s.Tx {
			b.WriteString("BEGIN;\n")
		}
		for _, st := range s.Hold {
			fmt.Fprintf(&b, "-- %s: takes %s\n%s;\n", st.Pos, st.Lock, strings.TrimRight(st.SQL, "; \n\t"))
		}
		switch k, ok := turn[i]; {
		case ok:
			fmt.Fprintf(&b, "SELECT pg_sleep(:step * %d);\n", k)
			fmt.Fprintf(&b, "-- %s: waits for %s\n%s;\n", s.Wait.Pos, s.Wait.Lock, strings.TrimRight(s.Wait.SQL, "; \n\t"))
		default:
			// Only holds: keep the locks until every other session has
			// waited and the hang has run into lock_timeout.
			fmt.Fprintf(&b, "SELECT pg_sleep(:step * %d + :timeout + 1);\n", len(sc.WaitOrder)+1)
		}
		if s.Tx {
			b.WriteString("ROLLBACK;\n")
		}
		if sc.Expect == DeadlockSessionLock {
			// Stay connected: a session advisory lock lives as long as
			// the connection, through the error and the ROLLBACK.
			b.WriteString("SELECT pg_sleep(:timeout + 1);\n")
		}
		b.WriteString("SQL\n")
	}
	b.WriteString("\nwait\n")
	writeVerdict(&b, sc.Expect)
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing reproducer: %w", err)
	}
	return nil
}

// writeVerdict ends the script with its outcome, for people and scripts:
// "reproduced: yes" and exit status 3 when the expected outcome was seen
// (as pglockorder exits 3 on findings), "reproduced: no" and 0 when the
// sessions ran without it, 1 when they failed otherwise (a connection, a
// missing table).
func writeVerdict(b *strings.Builder, e Expect) {
	b.WriteString(`
deadlocks=$(cat "$out"/* | grep -c 'deadlock detected')
timeouts=$(cat "$out"/* | grep -c 'canceling statement due to lock timeout')
failures=$(cat "$out"/* | grep -E 'ERROR:|FATAL:|psql: error' | grep -v -e 'deadlock detected' -e 'lock timeout' -e 'current transaction is aborted' | grep -c .)
`)
	var cond, what string
	switch e {
	case Deadlock:
		cond, what = `[ "$deadlocks" -ge 1 ]`, "deadlock detected (40P01)"
	case DeadlockSessionLock:
		cond, what = `[ "$deadlocks" -ge 1 ] && [ "$timeouts" -ge 1 ]`, "deadlock detected (40P01), then a wait for the session advisory lock ended by lock_timeout (55P03)"
	default:
		cond, what = `[ "$deadlocks" -eq 0 ] && [ "$timeouts" -ge 1 ]`, "no deadlock error, a hang ended by lock_timeout (55P03)"
	}
	fmt.Fprintf(b, `if %s; then
	echo "reproduced: yes (%s)"
	exit 3
fi
if [ "$failures" -gt 0 ]; then
	echo "reproduced: no (the sessions failed: see the errors above)"
	exit 1
fi
echo "reproduced: no"
exit 0
`, cond, what)
}
