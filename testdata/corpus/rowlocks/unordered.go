package rowlocks

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lockAccounts locks a caller-chosen set of accounts with no ORDER BY: two
// calls with overlapping sets can lock them in different orders.
func lockAccounts(ctx context.Context, tx pgx.Tx, ids []int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = ANY($1) FOR UPDATE", ids) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of accounts \(FOR UPDATE\), several of them \(= ANY\(...\)\) in no defined order`
	return err
}

// lockAccountsOrdered is the fix: the rows are locked in id order.
func lockAccountsOrdered(ctx context.Context, tx pgx.Tx, ids []int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids)
	return err
}

// lockOne locks one row by its key: nothing to order.
func lockOne(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// claimJob takes a queued job with SKIP LOCKED: it never waits, so it
// cannot deadlock.
func claimJob(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT id FROM jobs WHERE state = 'queued' FOR UPDATE SKIP LOCKED")
	return err
}

// tryLockRange fails at once with NOWAIT instead of waiting.
func tryLockRange(ctx context.Context, tx pgx.Tx, from int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id > $1 FOR UPDATE NOWAIT", from)
	return err
}

// lockNewest takes one row: LIMIT 1.
func lockNewest(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT id FROM jobs WHERE state = 'queued' ORDER BY created_at LIMIT 1 FOR UPDATE")
	return err
}

// lockTenant locks the rows of one tenant, chosen by equality: every
// execution that locks them uses the same predicate and plan.
func lockTenant(ctx context.Context, tx pgx.Tx, tenant int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE tenant_id = $1 FOR UPDATE", tenant)
	return err
}

// settleAll updates a caller-chosen set in a transaction: the rows are
// locked in the plan's order, not the caller's.
func settleAll(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE invoices SET settled = true WHERE id = ANY($1)", ids); err != nil { // want `unordered multi-row lock: UPDATE takes rows of invoices \(FOR NO KEY UPDATE\), several of them \(= ANY\(...\)\) in no defined order`
		return err
	}
	return tx.Commit(ctx)
}

// settleAllOrdered locks the rows in id order first, in one statement.
func settleAllOrdered(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `WITH locked AS (SELECT id FROM invoices WHERE id = ANY($1) ORDER BY id FOR UPDATE)
		UPDATE invoices SET settled = true WHERE id IN (SELECT id FROM locked)`, ids); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// settleAllLockedFirst locks the rows in order with one statement, then
// updates them with another: the UPDATE waits for nothing new.
func settleAllLockedFirst(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT id FROM invoices WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE invoices SET settled = true WHERE id = ANY($1)", ids); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// settleAllAutocommit runs the same UPDATE alone, in autocommit mode.
func settleAllAutocommit(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	_, err := pool.Exec(ctx, "UPDATE invoices SET settled = true WHERE id = ANY($1)", ids)
	return err
}

// archiveOld deletes a range of rows in a transaction.
func archiveOld(ctx context.Context, tx pgx.Tx, before int64) error {
	_, err := tx.Exec(ctx, "DELETE FROM events WHERE id < $1", before) // want `unordered multi-row lock: DELETE takes rows of events \(FOR UPDATE\), several of them \(a range\)`
	return err
}

// lockPerRow takes an advisory lock per row, in no defined order.
func lockPerRow(ctx context.Context, tx pgx.Tx, tenant int64) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(id) FROM accounts WHERE id = ANY($1)", tenant) // want `unordered multi-row lock: pg_advisory_xact_lock is called once per row \(= ANY\(...\)\) with no ORDER BY`
	return err
}

// lockPerRowOrdered takes them in id order.
func lockPerRowOrdered(ctx context.Context, tx pgx.Tx, tenant int64) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(id) FROM accounts WHERE id = ANY($1) ORDER BY id", tenant)
	return err
}

// upsertCounters upserts several rows in the order the VALUES list them.
func upsertCounters(ctx context.Context, tx pgx.Tx, a, b string) error {
	_, err := tx.Exec(ctx, "INSERT INTO counters (k, n) VALUES ($1, 1), ($2, 1) ON CONFLICT (k) DO UPDATE SET n = counters.n + 1", a, b) // want `unordered multi-row lock: INSERT ... ON CONFLICT DO UPDATE takes rows of counters \(FOR UPDATE\), several of them \(several VALUES rows\)`
	return err
}

// setBalances updates a caller's list of rows through a VALUES join: the
// rows are locked in the list's order.
func setBalances(ctx context.Context, tx pgx.Tx, a, b, x, y int64) error {
	_, err := tx.Exec(ctx, "UPDATE accounts SET balance = v.balance FROM (VALUES ($1::bigint, $2::bigint), ($3, $4)) v(id, balance) WHERE accounts.id = v.id", a, x, b, y) // want `unordered multi-row lock: UPDATE takes rows of accounts \(FOR NO KEY UPDATE\), several of them \(a join with a list of keys\)`
	return err
}
