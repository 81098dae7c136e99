package lockseq_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// spliceSource has a helper that splices its caller's table name into the
// SQL it runs, called with constants, with a run-time value, and text built
// at run time in other ways.
const spliceSource = `package p

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
)

func lock(ctx context.Context, tx *sql.Tx, table string) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf("SELECT id FROM %s WHERE id = 1 FOR UPDATE", table))
	return err
}

func lockTwice(ctx context.Context, tx *sql.Tx, first, second string) error {
	if err := lock(ctx, tx, first); err != nil {
		return err
	}
	return lock(ctx, tx, second)
}

func Forward(ctx context.Context, tx *sql.Tx) error {
	return lockTwice(ctx, tx, "alpha", "beta")
}

func Other(ctx context.Context, tx *sql.Tx) error {
	return lockTwice(ctx, tx, "gamma", "delta")
}

func FromEnv(ctx context.Context, tx *sql.Tx) error {
	return lock(ctx, tx, os.Getenv("TABLE"))
}

func Direct(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s", os.Getenv("TABLE")))
	return err
}

func Looped(ctx context.Context, tx *sql.Tx, cols []string) error {
	var b strings.Builder
	b.WriteString("SELECT ")
	for _, c := range cols {
		b.WriteString(c)
	}
	b.WriteString(" FROM t FOR UPDATE")
	_, err := tx.ExecContext(ctx, b.String())
	return err
}
`

// TestSpliceBinding checks, below the corpus, that a helper's spliced
// parameter is bound at each call site (two helper levels here): each
// caller's constants are its own lock classes, never the union of the
// helper's callers; and that every text still built at run time is a skip
// with the reason, at the call that runs it.
func TestSpliceBinding(t *testing.T) {
	fset, fns := buildFuncs(t, spliceSource)
	an := summarise(fset, fns)
	var edges []string
	for _, e := range an.Edges {
		if e.Held.Class.IsRow() && e.Wanted.Class.IsRow() {
			edges = append(edges, e.Func+": "+e.Held.Class.String()+" -> "+e.Wanted.Class.String())
		}
	}
	slices.Sort(edges)
	want := []string{"p.Forward: row:alpha -> row:beta", "p.Other: row:gamma -> row:delta"}
	if !slices.Equal(edges, want) {
		t.Errorf("row edges = %q, want %q", edges, want)
	}

	reasons := map[string]string{}
	for _, s := range an.Skipped {
		if s.Reason == lockseq.SkipRuntime {
			reasons[s.Posn[strings.Index(s.Posn, ":")+1:]] = s.Detail
		}
	}
	for posn, want := range map[string]string{
		"32:13": "parameter table of p.lock is the result of os.Getenv",
		"36:26": "argument 2 of fmt.Sprintf is not constant: the result of os.Getenv",
		"47:26": "a strings.Builder written in a branch or a loop",
	} {
		if got, ok := reasons[posn]; !ok || got != want {
			t.Errorf("skip at %s: %q, want %q (all: %q)", posn, got, want, reasons)
		}
	}
	if len(reasons) != 3 {
		t.Errorf("%d run-time skips, want 3: %q", len(reasons), reasons)
	}
}
