package testcode

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// rewind takes the journal before the ledger, against Settle: a test
// helper, never run beside the service, so nothing is reported.
func rewind(ctx context.Context, t *testing.T, conn *pgx.Conn) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tc_journal SET n = 0 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE tc_ledger SET total = 0 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
}

func TestRewind(t *testing.T) { // want TestRewind:`^locks\(table:tc_journal ROW EXCLUSIVE@C0/L0, row:tc_journal FOR NO KEY UPDATE@C0/L0, table:tc_ledger ROW EXCLUSIVE@C0/L0, row:tc_ledger FOR NO KEY UPDATE@C0/L0\)$`
	rewind(context.Background(), t, nil)
}

// TestSeedA and TestSeedB can run in parallel (t.Parallel): two tests that
// invert each other are still reported.
func TestSeedA(t *testing.T) { // want TestSeedA:`^locks\(table:tc_fixture_a ROW EXCLUSIVE@L0, row:tc_fixture_a FOR NO KEY UPDATE@L0, table:tc_fixture_b ROW EXCLUSIVE@L0, row:tc_fixture_b FOR NO KEY UPDATE@L0\)$`
	t.Parallel()
	ctx := context.Background()
	var conn *pgx.Conn
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tc_fixture_a SET n = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE tc_fixture_b SET n = 1 WHERE id = 1"); err != nil { // want `lock-order inversion: rows of tc_fixture_a and rows of tc_fixture_b`
		t.Fatal(err)
	}
}

func TestSeedB(t *testing.T) { // want TestSeedB:`^locks\(table:tc_fixture_b ROW EXCLUSIVE@L0, row:tc_fixture_b FOR NO KEY UPDATE@L0, table:tc_fixture_a ROW EXCLUSIVE@L0, row:tc_fixture_a FOR NO KEY UPDATE@L0\)$`
	t.Parallel()
	ctx := context.Background()
	var conn *pgx.Conn
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tc_fixture_b SET n = 2 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE tc_fixture_a SET n = 2 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
}
