package rowlocks // want package:"sql=true edges=95"

import (
	"context"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// applyCredits locks one balance per map entry, in one transaction: Go
// randomises map order, so two calls lock shared balances in different
// orders.
func applyCredits(ctx context.Context, pool *pgxpool.Pool, credits map[int64]int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for id, amount := range credits {
		if _, err := tx.Exec(ctx, "UPDATE balances SET amount = amount + $2 WHERE id = $1", id, amount); err != nil { // want `lock order set by a loop: rows of balances \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a map`
			return err
		}
	}
	return tx.Commit(ctx)
}

// applyCreditsSorted is the fix: the keys are sorted first.
func applyCreditsSorted(ctx context.Context, pool *pgxpool.Pool, credits map[int64]int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for _, id := range slices.Sorted(maps.Keys(credits)) {
		if _, err := tx.Exec(ctx, "UPDATE balances SET amount = amount + $2 WHERE id = $1", id, credits[id]); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// applyCreditsCollected collects the keys without sorting them: still the
// map's order.
func applyCreditsCollected(ctx context.Context, tx pgx.Tx, credits map[int64]int64) error {
	for _, id := range slices.Collect(maps.Keys(credits)) {
		if _, err := tx.Exec(ctx, "UPDATE balances SET amount = amount + $2 WHERE id = $1", id, credits[id]); err != nil { // want `lock order set by a loop: rows of balances \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the keys of a map`
			return err
		}
	}
	return nil
}

// lockAll locks the accounts in the order the caller lists them.
func lockAll(ctx context.Context, tx pgx.Tx, ids []int64) error {
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR UPDATE\) are taken once per iteration of a loop over the slice ids in the order the caller passes it`
			return err
		}
	}
	return nil
}

// lockAllSorted sorts a copy of the ids first.
func lockAllSorted(ctx context.Context, tx pgx.Tx, ids []int64) error {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	for _, id := range sorted {
		if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
	}
	return nil
}

// lockAllPerTx commits each row on its own: nothing is held across
// iterations.
func lockAllPerTx(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	for _, id := range ids {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}

// touchAllAutocommit updates each row in autocommit mode.
func touchAllAutocommit(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	for _, id := range ids {
		if _, err := pool.Exec(ctx, "UPDATE accounts SET seen_at = now() WHERE id = $1", id); err != nil {
			return err
		}
	}
	return nil
}

// lockAllViaHelper locks through a helper, once per caller-listed id.
func lockAllViaHelper(ctx context.Context, tx pgx.Tx, ids []int64) error {
	for _, id := range ids {
		if err := lockOne(ctx, tx, id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR UPDATE\) are taken once per iteration of a loop over the slice ids`
			return err
		}
	}
	return nil
}

// lockKeys takes an advisory lock per map key.
func lockKeys(ctx context.Context, tx pgx.Tx, keys map[int64]bool) error {
	for k := range keys {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", k); err != nil { // want `lock order set by a loop: an advisory lock \(exclusive\) is taken once per iteration of a loop over a map`
			return err
		}
	}
	return nil
}

// lockListed locks the same row on every iteration of a map loop: the
// order of the map does not matter.
func lockListed(ctx context.Context, tx pgx.Tx, names map[string]bool) error {
	for name := range names {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET note = $2 WHERE id = $1", 1, name); err != nil {
			return err
		}
	}
	return nil
}

// lockQueried locks rows read by a query with ORDER BY: in order.
func lockQueried(ctx context.Context, tx pgx.Tx, tenant int64) error {
	rows, err := tx.Query(ctx, "SELECT id FROM accounts WHERE tenant_id = $1 ORDER BY id", tenant)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET seen_at = now() WHERE id = $1", id); err != nil {
			return err
		}
	}
	return nil
}

// lockQueriedUnordered locks rows read by a query without ORDER BY.
func lockQueriedUnordered(ctx context.Context, tx pgx.Tx, tenant int64) error {
	rows, err := tx.Query(ctx, "SELECT id FROM accounts WHERE tenant_id = $1", tenant)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET seen_at = now() WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a slice of query results that have no ORDER BY`
			return err
		}
	}
	return nil
}

// lockPair ranges over a literal of the caller's two values.
func lockPair(ctx context.Context, tx pgx.Tx, a, b int64) error {
	for _, id := range []int64{a, b} {
		if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR UPDATE\) are taken once per iteration of a loop over a slice literal of values in the order the caller passes them`
			return err
		}
	}
	return nil
}

// lockConstants ranges over constant keys: one fixed order.
func lockConstants(ctx context.Context, tx pgx.Tx) error {
	for _, id := range []int64{1, 2, 3} {
		if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
	}
	return nil
}

// lockTablesListed locks a constant list of tables, one per iteration: a
// fixed order that feeds the table-order graph, here against
// lockTablesBackwards.
func lockTablesListed(ctx context.Context, tx pgx.Tx) error {
	for _, stmt := range []string{
		"LOCK TABLE ledger_entries IN EXCLUSIVE MODE",
		"LOCK TABLE ledger_totals IN EXCLUSIVE MODE",
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil { // want `lock-order inversion: table ledger_entries and table ledger_totals are locked in opposite orders`
			return err
		}
	}
	return nil
}

func lockTablesBackwards(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "LOCK TABLE ledger_totals IN EXCLUSIVE MODE"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "LOCK TABLE ledger_entries IN EXCLUSIVE MODE")
	return err
}
