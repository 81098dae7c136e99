package explain

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// dump renders what Read found, for golden files.
func dump(l *Log) string {
	var b strings.Builder
	for _, r := range l.Reports {
		fmt.Fprintf(&b, "%s at line %d", r.Kind, r.Line)
		if r.Time != "" {
			fmt.Fprintf(&b, " (%s)", r.Time)
		}
		fmt.Fprintf(&b, " from %s", r.Source)
		if r.Truncated {
			b.WriteString(", truncated")
		}
		b.WriteString("\n")
		for _, p := range r.Processes {
			fmt.Fprintf(&b, "  process %d", p.PID)
			if p.Victim {
				b.WriteString(" (victim)")
			}
			if p.Waits != nil {
				fmt.Fprintf(&b, " waits for %q = %s", p.Waits.Text, p.Waits.Model())
				if c := p.Waits.Class(); c != "" {
					fmt.Fprintf(&b, " [%s]", c)
				}
			}
			if len(p.BlockedBy) > 0 {
				fmt.Fprintf(&b, " blocked by %v", p.BlockedBy)
			}
			b.WriteString("\n")
			if p.Statement != "" {
				fmt.Fprintf(&b, "    statement: %s\n", p.Statement)
			}
			if p.Context != "" {
				fmt.Fprintf(&b, "    context: %s\n", p.Context)
			}
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	keys := make([]string, 0, len(l.Stats.Entries))
	for k := range l.Stats.Entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(&b, "-- %d lines", l.Stats.Lines)
	for _, k := range keys {
		fmt.Fprintf(&b, ", %d %s", l.Stats.Entries[k], k)
	}
	if l.Stats.BinaryLines > 0 {
		fmt.Fprintf(&b, ", %d binary", l.Stats.BinaryLines)
	}
	if l.Stats.CutLines > 0 {
		fmt.Fprintf(&b, ", %d cut", l.Stats.CutLines)
	}
	b.WriteString("\n")
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}

// TestReadFormats reads logs captured from a PostgreSQL 15 server running
// the corpus's reproducers (stderr with three log_line_prefix settings,
// csvlog, jsonlog), a driver's errors from a deadlock on that server, and
// psql's output of a blocked/blocking query during a wait.
func TestReadFormats(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = in.Close() }()
			l, err := Read(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Reports) == 0 {
				t.Errorf("no report read from %s", f)
			}
			golden(t, filepath.Base(f), dump(l))
		})
	}
	if n < 9 {
		t.Errorf("%d fixtures, want the 9 formats", n)
	}
}

// TestReadSameDeadlock checks that every server format reads the same
// deadlock the same way.
func TestReadSameDeadlock(t *testing.T) {
	want := "UPDATE subscriptions SET plan = '1' WHERE account_id = '1'"
	for _, f := range []string{"stderr_m_p_q.log", "stderr_t_p_l.log", "stderr_m_p.log", "csvlog.csv", "jsonlog.json"} {
		in, err := os.Open(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		l, err := Read(in)
		_ = in.Close()
		if err != nil {
			t.Fatal(err)
		}
		r := l.Reports[0]
		if r.Kind != Deadlock || len(r.Processes) != 2 || r.Truncated {
			t.Fatalf("%s: first report %+v", f, r)
		}
		victim, other := r.Processes[0], r.Processes[1]
		if !victim.Victim || victim.Waits.Class() != "row:usage_records" || other.Statement != want || victim.BlockedBy[0] != other.PID || other.BlockedBy[0] != victim.PID {
			t.Errorf("%s: %s", f, dump(l))
		}
	}
}

func read(t *testing.T, s string) *Log {
	t.Helper()
	l, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestReadBadInput(t *testing.T) {
	t.Run("no deadlock", func(t *testing.T) {
		l := read(t, "2024-05-01 10:00:00.000 UTC [42] LOG:  database system is ready to accept connections\n")
		if len(l.Reports) != 0 || l.Stats.Entries["stderr"] != 1 {
			t.Errorf("%s", dump(l))
		}
	})
	t.Run("binary", func(t *testing.T) {
		l := read(t, "\x00\x01\x02garbage\xff\xfe\n\x7fELF\x00\x00\n")
		if len(l.Reports) != 0 || l.Stats.BinaryLines != 2 {
			t.Errorf("%s", dump(l))
		}
	})
	t.Run("latin1", func(t *testing.T) {
		// A server in LATIN1 logs its statements in it: still text.
		l := read(t, "2024-05-01 10:00:00.000 UTC [42] ERROR:  deadlock detected\n"+
			"2024-05-01 10:00:00.000 UTC [42] DETAIL:  Process 42 waits for ShareLock on transaction 7; blocked by process 43.\n"+
			"\tProcess 43 waits for ShareLock on transaction 8; blocked by process 42.\n"+
			"\tProcess 42: UPDATE caf\xe9 SET n = 1\n"+
			"\tProcess 43: UPDATE t SET n = 2\n")
		if len(l.Reports) != 1 || l.Stats.BinaryLines != 0 || l.Reports[0].Processes[0].Statement != "UPDATE caf\uFFFD SET n = 1" {
			t.Errorf("%s", dump(l))
		}
	})
	t.Run("truncated detail", func(t *testing.T) {
		// The log ends after the first line of the DETAIL: the cycle
		// does not close.
		l := read(t, "2024-05-01 10:00:00.000 UTC [42] ERROR:  deadlock detected\n"+
			"2024-05-01 10:00:00.000 UTC [42] DETAIL:  Process 42 waits for ShareLock on transaction 7; blocked by process 43.\n")
		if len(l.Reports) != 1 || !l.Reports[0].Truncated {
			t.Errorf("%s", dump(l))
		}
	})
	t.Run("truncated csv", func(t *testing.T) {
		data, err := os.ReadFile("testdata/csvlog.csv")
		if err != nil {
			t.Fatal(err)
		}
		d := bytes.Index(data, []byte(`"deadlock detected"`))
		i := d + bytes.Index(data[d:], []byte("Process "))
		l := read(t, string(data[:i+60]))
		if len(l.Reports) == 0 || !l.Reports[len(l.Reports)-1].Truncated {
			t.Errorf("%s", dump(l))
		}
	})
	t.Run("long line", func(t *testing.T) {
		long := strings.Repeat("x", maxLine+100)
		l := read(t, long+"\n2024-05-01 10:00:00.000 UTC [42] ERROR:  deadlock detected\n2024-05-01 10:00:00.000 UTC [42] DETAIL:  Process 42 waits for ExclusiveLock on advisory lock [5,0,7,1]; blocked by process 43.\n\tProcess 43 waits for ExclusiveLock on advisory lock [5,0,8,1]; blocked by process 42.\n")
		if l.Stats.CutLines != 1 || len(l.Reports) != 1 || l.Reports[0].Truncated {
			t.Errorf("%s", dump(l))
		}
	})
	t.Run("gzip", func(t *testing.T) {
		data, err := os.ReadFile("testdata/stderr_m_p.log")
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		_, _ = w.Write(data)
		_ = w.Close()
		plain := read(t, string(data))
		zipped := read(t, z.String())
		if dump(plain) != dump(zipped) {
			t.Errorf("gzip read differs:\n%s", dump(zipped))
		}
	})
}

// TestReadLargeInput streams a log far larger than its memory limits: the
// reports are found and memory stays bounded by the limits, not the input.
func TestReadLargeInput(t *testing.T) {
	data, err := os.ReadFile("testdata/stderr_m_p.log")
	if err != nil {
		t.Fatal(err)
	}
	const copies = 500 // about 5 MB
	r := io.MultiReader(repeat(data, copies)...)
	l, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	per := len(read(t, string(data)).Reports)
	if len(l.Reports) != maxReports || l.Dropped < per*copies/2 {
		t.Errorf("%d reports, %d dropped; want %d kept of about %d", len(l.Reports), l.Dropped, maxReports, per*copies)
	}
	if l.Stats.Lines != copies*bytes.Count(data, []byte("\n")) {
		t.Errorf("%d lines read, want %d", l.Stats.Lines, copies*bytes.Count(data, []byte("\n")))
	}
}

// BenchmarkRead measures the reader's throughput on a server log.
func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile("testdata/stderr_m_p_q.log")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func repeat(b []byte, n int) []io.Reader {
	out := make([]io.Reader, n)
	for i := range out {
		out[i] = bytes.NewReader(b)
	}
	return out
}

func TestParseLock(t *testing.T) {
	tests := []struct{ text, context, model, class string }{
		{"ShareLock on transaction 739", `while locking tuple (0,1) in relation "usage_records"`, "a row lock on usage_records (waits for the transaction holding the row to end)", "row:usage_records"},
		{"ExclusiveLock on tuple (0,1) of relation 16384 of database 5", "", "FOR NO KEY UPDATE row lock on oid 16384", ""},
		{"AccessExclusiveLock on tuple (0,1) of relation 16384 of database 5", `while updating tuple (0,1) in relation "Accounts"`, "FOR UPDATE row lock on Accounts", "row:Accounts"},
		{"AccessExclusiveLock on relation 16390 of database 5", "", "ACCESS EXCLUSIVE lock on table oid 16390", ""},
		{"ShareRowExclusiveLock on relation 16390 of database 5", "", "SHARE ROW EXCLUSIVE lock on table oid 16390", ""},
		{"ExclusiveLock on advisory lock [16426,0,100,1]", "", "advisory lock (100)", "advisory:(100)"},
		{"ShareLock on advisory lock [16426,4294967295,3899161368,1]", "", "shared advisory lock (-395805928)", "advisory:(-395805928)"},
		{"ExclusiveLock on advisory lock [16426,7,4294967295,2]", "", "advisory lock (7, -1)", "advisory:(7, -1)"},
		{"ShareLock on virtual transaction 4/123", "", "a lock on virtual transaction, which the lock model does not know", ""},
		{"ExclusiveLock on extension of relation 16390 of database 5", "", "a lock on extension of relation, which the lock model does not know", ""},
		{"not a lock", "", "a lock the model does not know", ""},
	}
	for _, tt := range tests {
		l := ParseLock(tt.text, tt.context)
		if got := l.Model(); got != tt.model {
			t.Errorf("ParseLock(%q).Model() = %q, want %q", tt.text, got, tt.model)
		}
		if got := l.Class(); got != tt.class {
			t.Errorf("ParseLock(%q).Class() = %q, want %q", tt.text, got, tt.class)
		}
	}
}

// FuzzRead feeds the reader arbitrary input: it must never panic, and
// whatever it reads must be well formed.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && !strings.HasSuffix(name, ".golden") {
			f.Add(data)
		}
	}
	f.Add([]byte("ERROR:  deadlock detected\nDETAIL:  Process 1 waits for x; blocked by process 2.\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.Reports {
			if len(r.Processes) == 0 && !r.Truncated {
				t.Errorf("a complete report without processes: %+v", r)
			}
			for _, p := range r.Processes {
				if len(p.Statement) > maxField*2 {
					t.Errorf("statement of %d bytes", len(p.Statement))
				}
			}
		}
		_ = Explain(l, Program{})
	})
}

// TestReadDeadlockAtCharacter reads a deadlock whose victim waited for a
// table lock taken while its statement was parsed: the plain-text log adds
// the statement's position to the error (as PostgreSQL 15 logged it).
func TestReadDeadlockAtCharacter(t *testing.T) {
	l := read(t, `2026-12-02 12:11:23.398 UTC [16007] LOG:  process 16007 detected deadlock while waiting for RowExclusiveLock on relation 20805 of database 20796 after 100.171 ms at character 13
2026-12-02 12:11:23.398 UTC [16007] DETAIL:  Process holding the lock: 16008. Wait queue: .
2026-12-02 12:11:23.398 UTC [16007] STATEMENT:  INSERT INTO pc_artifacts (build_id, path) VALUES ('1', '1')
2026-12-02 12:11:23.398 UTC [16007] ERROR:  deadlock detected at character 13
2026-12-02 12:11:23.398 UTC [16007] DETAIL:  Process 16007 waits for RowExclusiveLock on relation 20805 of database 20796; blocked by process 16008.
	Process 16008 waits for ShareLock on transaction 1034; blocked by process 16007.
	Process 16007: INSERT INTO pc_artifacts (build_id, path) VALUES ('1', '1')
	Process 16008: UPDATE "pc_builds" SET status = 'pruned' WHERE pipeline_id = '1'
2026-12-02 12:11:23.398 UTC [16007] HINT:  See server log for query details.
2026-12-02 12:11:23.398 UTC [16007] STATEMENT:  INSERT INTO pc_artifacts (build_id, path) VALUES ('1', '1')
`)
	if len(l.Reports) != 1 || l.Reports[0].Kind != Deadlock || len(l.Reports[0].Processes) != 2 {
		t.Fatalf("want one deadlock of two processes: %s", dump(l))
	}
}
