package crossconn

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// querier is what both a transaction and the pool offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// claimKeys runs in the caller's transaction, or on the pool when the caller
// owns none: a φ of two handles. With the transaction it is one ordinary
// path; the analysis must not invent a wait across connections.
func claimKeys(ctx context.Context, tx querier, pool *pgxpool.Pool, ownsTx bool) error {
	q := tx
	if ownsTx {
		q = pool
	}
	_, err := q.Exec(ctx, "SELECT key FROM idempotency_keys WHERE key = $1 FOR UPDATE", "k")
	return err
}

// TriggerRuns locks log entries, then claims keys in the same transaction.
func TriggerRuns(ctx context.Context, pool *pgxpool.Pool) error { // want TriggerRuns:`locks\(.*row:log_entries FOR NO KEY UPDATE@L0, .*row:idempotency_keys FOR UPDATE@L0\)`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE log_entries SET claimed = true WHERE id = $1", 1); err != nil {
		return err
	}
	if err := claimKeys(ctx, tx, pool, false); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// MatchEvents claims keys first, then updates log entries.
func MatchEvents(ctx context.Context, pool *pgxpool.Pool) error { // want MatchEvents:`locks\(.*row:idempotency_keys FOR UPDATE@L0, .*row:log_entries FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT key FROM idempotency_keys WHERE key = $1 FOR UPDATE", "k"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE log_entries SET satisfied = true WHERE id = $1", 1) // want `lock-order inversion: rows of idempotency_keys and rows of log_entries are locked in opposite orders; concurrent transactions`
		return err
	})
}
