package autocommit // want package:"sql=true edges=22"

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Repo runs statements on a pool and on a database/sql handle.
type Repo struct {
	pool *pgxpool.Pool
	db   *sql.DB
}

// CreditAccount runs two autocommit statements: each holds its row lock only
// while it runs, so no order between them matters.
func (r *Repo) CreditAccount(ctx context.Context, accountID int64, amount int) error { // want CreditAccount:`locks\(.*row:accounts FOR NO KEY UPDATE@p0\.pool.*row:audit FOR NO KEY UPDATE@p0\.pool`
	if _, err := r.pool.Exec(ctx, "UPDATE accounts SET balance = balance + $2 WHERE id = $1", accountID, amount); err != nil {
		return err
	}
	_, err := r.pool.Exec(ctx, "UPDATE audit SET v = v + 1 WHERE id = $1", accountID)
	return err
}

// RecordAudit updates the same rows in the opposite order, also in
// autocommit mode.
func (r *Repo) RecordAudit(ctx context.Context, accountID int64) error { // want RecordAudit:`locks\(.*row:audit FOR NO KEY UPDATE@p0\.pool.*row:accounts FOR NO KEY UPDATE@p0\.pool`
	if _, err := r.pool.Exec(ctx, "UPDATE audit SET v = v + 1 WHERE id = $1", accountID); err != nil {
		return err
	}
	_, err := r.pool.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", accountID)
	return err
}

// SyncLegacy does the same through database/sql.
func (r *Repo) SyncLegacy(ctx context.Context, accountID int64) error { // want SyncLegacy:`locks\(.*row:legacy_accounts FOR NO KEY UPDATE@p0\.db.*row:legacy_audit FOR UPDATE@p0\.db`
	if _, err := r.db.ExecContext(ctx, "UPDATE legacy_accounts SET synced = true WHERE id = $1", accountID); err != nil {
		return err
	}
	var n int
	return r.db.QueryRowContext(ctx, "SELECT id FROM legacy_audit WHERE id = $1 FOR UPDATE", accountID).Scan(&n)
}

// MarkLegacy locks the legacy rows the other way round, without a
// transaction.
func (r *Repo) MarkLegacy(ctx context.Context, accountID int64) error { // want MarkLegacy:`locks\(.*row:legacy_audit FOR UPDATE@p0\.db.*row:legacy_accounts FOR NO KEY UPDATE@p0\.db`
	if _, err := r.db.ExecContext(ctx, "DELETE FROM legacy_audit WHERE id = $1", accountID); err != nil {
		return err
	}
	_, err := r.db.ExecContext(ctx, "UPDATE legacy_accounts SET synced = false WHERE id = $1", accountID)
	return err
}

// Transfer moves money inside a transaction: wallets, then ledger rows.
func (r *Repo) Transfer(ctx context.Context, walletID int64) error { // want Transfer:`locks\(.*row:wallets FOR NO KEY UPDATE@L0.*row:ledger_entries FOR NO KEY UPDATE@L0`
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE wallets SET balance = balance - 1 WHERE id = $1", walletID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE ledger_entries SET settled = true WHERE wallet_id = $1", walletID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Settle does the same in the opposite order inside a transaction: the
// transactional twin of RecordAudit deadlocks with Transfer.
func (r *Repo) Settle(ctx context.Context, walletID int64) error { // want Settle:`locks\(.*row:ledger_entries FOR NO KEY UPDATE@L0.*row:wallets FOR NO KEY UPDATE@L0`
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE ledger_entries SET settled = false WHERE wallet_id = $1", walletID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE wallets SET balance = balance + 1 WHERE id = $1", walletID); err != nil { // want `lock-order inversion: rows of ledger_entries and rows of wallets are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Reindex runs both orders on one dedicated connection, still without a
// transaction: autocommit statements hold nothing between them.
func (r *Repo) Reindex(ctx context.Context, id int64) error { // want Reindex:`locks\(.*row:doc_index FOR NO KEY UPDATE@L0.*row:documents FOR NO KEY UPDATE@L0.*row:doc_index FOR NO KEY UPDATE@L0`
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "UPDATE doc_index SET dirty = true WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "UPDATE documents SET indexed = false WHERE id = $1", id); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "UPDATE doc_index SET dirty = false WHERE id = $1", id)
	return err
}
