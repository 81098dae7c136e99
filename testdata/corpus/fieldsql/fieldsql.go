package fieldsql // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Repo keeps its statements in fields its constructor sets.
type Repo struct {
	pool      *pgxpool.Pool
	lockOrder string
	payWallet string
	extra     string
}

// NewRepo sets the statements.
func NewRepo(pool *pgxpool.Pool) *Repo { // want NewRepo:`returns\(0.pool=p0\(pool\)\)`
	r := &Repo{pool: pool, lockOrder: "SELECT 1 FROM fs_orders WHERE id = $1 FOR UPDATE"}
	r.payWallet = "UPDATE fs_wallets SET balance = balance + 1 WHERE id = $1"
	r.extra = os.Getenv("EXTRA_SQL")
	return r
}

// Release locks the order, then pays the wallet (statements in fields).
func (r *Repo) Release(ctx context.Context, id int64) error { // want Release:`locks\(.*row:fs_orders FOR UPDATE@L0.*row:fs_wallets FOR NO KEY UPDATE@L0`
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, r.lockOrder, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, r.payWallet, id); err != nil { // want `lock-order inversion: rows of fs_orders and rows of fs_wallets are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Freeze locks the wallet, then holds the order: the opposite order.
func (r *Repo) Freeze(ctx context.Context, id int64) error { // want Freeze:`locks\(.*row:fs_wallets FOR UPDATE@L0.*row:fs_orders FOR NO KEY UPDATE@L0`
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM fs_wallets WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE fs_orders SET status = 'held' WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Extra runs a statement read from the environment: run-time text.
func (r *Repo) Extra(ctx context.Context) error {
	_, err := r.pool.Exec(ctx, r.extra)
	return err
}
