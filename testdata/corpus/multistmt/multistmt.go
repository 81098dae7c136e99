package multistmt

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ledger posts entries.
type Ledger struct {
	pool *pgxpool.Pool
}

// PostBoth locks a journal row and then a posting row in one string sent on
// the pool: the statements run as one implicit transaction, so the first
// lock is held while the second is requested.
func (l *Ledger) PostBoth(ctx context.Context) error { // want PostBoth:`locks\(.*row:journals FOR UPDATE@p0\.pool.*row:postings FOR UPDATE@p0\.pool`
	_, err := l.pool.Exec(ctx, "SELECT id FROM journals WHERE id = 1 FOR UPDATE; SELECT id FROM postings WHERE journal_id = 1 FOR UPDATE") // want `lock-order inversion: rows of journals and rows of postings are locked in opposite orders`
	return err
}

// Unpost locks the posting, then the journal, in a transaction.
func (l *Ledger) Unpost(ctx context.Context, journalID int64) error { // want Unpost:`locks\(.*row:postings FOR NO KEY UPDATE@L0.*row:journals FOR NO KEY UPDATE@L0`
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE postings SET void = true WHERE journal_id = $1", journalID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE journals SET void = true WHERE id = $1", journalID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Settle queues a lock on a batch row and then on a settlement row and sends
// them together on the pool: a batch is one implicit transaction too.
func (l *Ledger) Settle(ctx context.Context, batchID int64) error { // want Settle:`locks\(.*row:settlement_batches FOR UPDATE@p0\.pool.*row:settlements FOR NO KEY UPDATE@p0\.pool`
	b := &pgx.Batch{}
	b.Queue("SELECT id FROM settlement_batches WHERE id = $1 FOR UPDATE", batchID)
	b.Queue("UPDATE settlements SET state = 'settled' WHERE batch_id = $1", batchID)
	return l.pool.SendBatch(ctx, b).Close() // want `(?s)lock-order inversion: rows of settlement_batches and rows of settlements are locked in opposite orders.*in a batch on the pool \(one implicit transaction\)`
}

// Reverse locks the settlement, then the batch.
func (l *Ledger) Reverse(ctx context.Context, batchID int64) error { // want Reverse:`locks\(.*row:settlements FOR NO KEY UPDATE@L0.*row:settlement_batches FOR NO KEY UPDATE@L0`
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE settlements SET state = 'reversed' WHERE batch_id = $1", batchID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE settlement_batches SET reversed = true WHERE id = $1", batchID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Refresh runs two single statements on the pool, one after the other: each
// is its own implicit transaction, so nothing is held in between.
func (l *Ledger) Refresh(ctx context.Context) error { // want Refresh:`locks\(.*row:rollups FOR UPDATE@p0\.pool.*row:rollup_parts FOR UPDATE@p0\.pool`
	if _, err := l.pool.Exec(ctx, "SELECT id FROM rollups WHERE id = 1 FOR UPDATE"); err != nil {
		return err
	}
	_, err := l.pool.Exec(ctx, "SELECT id FROM rollup_parts WHERE rollup_id = 1 FOR UPDATE")
	return err
}

// Rebuild locks the rollup parts and then the rollup in a transaction.
func (l *Ledger) Rebuild(ctx context.Context) error { // want Rebuild:`locks\(.*row:rollup_parts FOR NO KEY UPDATE@L0.*row:rollups FOR NO KEY UPDATE@L0`
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE rollup_parts SET stale = true WHERE rollup_id = 1"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE rollups SET stale = true WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
