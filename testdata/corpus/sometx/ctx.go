package sometx // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A repository whose handle is the context's transaction when there is one,
// and the pool otherwise: a caller that began no transaction runs each
// statement in autocommit, holding nothing from one to the next.

type txKey struct{}

// DBTX is what the repository's statements run on.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Repo keeps carts and coupons.
type Repo struct{ pool *pgxpool.Pool }

// db returns the context's transaction, or the pool.
func (r *Repo) db(ctx context.Context) DBTX { // want db:`^returns\(0=p1\.ctx\$tx\(handle\)\)$`
	if tx, ok := ctx.Value(txKey{}).(pgx.Tx); ok {
		return tx
	}
	return r.pool
}

// InTx runs fn with a context carrying a transaction it begins.
func (r *Repo) InTx(ctx context.Context, fn func(ctx context.Context) error) error { // want InTx:`^invokes\(p2\(0\.ctx\$tx=L0\(transaction\)\)\)$`
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// LockCart and LockCoupon lock one row each on the context's handle.
func (r *Repo) LockCart(ctx context.Context, id int64) error { // want LockCart:`^locks\(table:st_carts ROW EXCLUSIVE@p1\.ctx\$tx, `
	_, err := r.db(ctx).Exec(ctx, "UPDATE st_carts SET n = n + 1 WHERE id = $1", id)
	return err
}

func (r *Repo) LockCoupon(ctx context.Context, id int64) error { // want LockCoupon:`^locks\(table:st_coupons ROW EXCLUSIVE@p1\.ctx\$tx, `
	_, err := r.db(ctx).Exec(ctx, "UPDATE st_coupons SET n = n + 1 WHERE id = $1", id)
	return err
}

// Apply and Revoke lock the cart and the coupon in opposite orders with no
// transaction in the context: each statement commits on its own.
func (r *Repo) Apply(ctx context.Context, cart, coupon int64) error { // want Apply:`^locks\(table:st_carts ROW EXCLUSIVE@p1\.ctx\$tx, `
	if err := r.LockCart(ctx, cart); err != nil {
		return err
	}
	return r.LockCoupon(ctx, coupon)
}

func (r *Repo) Revoke(ctx context.Context, cart, coupon int64) error { // want Revoke:`^locks\(table:st_coupons ROW EXCLUSIVE@p1\.ctx\$tx, `
	if err := r.LockCoupon(ctx, coupon); err != nil {
		return err
	}
	return r.LockCart(ctx, cart)
}

// Checkout and Refund do the same inside InTx: the context carries the
// transaction, and the orders deadlock.
func (r *Repo) Checkout(ctx context.Context, cart, coupon int64) error { // want Checkout:`^locks\(table:st_carts ROW EXCLUSIVE@C0/L0, `
	return r.InTx(ctx, func(ctx context.Context) error {
		if err := r.LockCart(ctx, cart); err != nil {
			return err
		}
		return r.LockCoupon(ctx, coupon)
	})
}

func (r *Repo) Refund(ctx context.Context, cart, coupon int64) error { // want Refund:`^locks\(table:st_coupons ROW EXCLUSIVE@C0/L0, `
	return r.InTx(ctx, func(ctx context.Context) error {
		if err := r.LockCoupon(ctx, coupon); err != nil {
			return err
		}
		return r.LockCart(ctx, cart)
	})
}

// Nightly and Daily call Apply and Revoke on a context with no transaction:
// autocommit, nothing held across statements.
func (r *Repo) Nightly(cart, coupon int64) error { // want Nightly:`^locks\(table:st_carts ROW EXCLUSIVE@L0\.ctx\$tx, `
	return r.Apply(context.Background(), cart, coupon)
}

func (r *Repo) Daily(cart, coupon int64) error { // want Daily:`^locks\(table:st_coupons ROW EXCLUSIVE@L0\.ctx\$tx, `
	return r.Revoke(context.Background(), cart, coupon)
}

// Batch calls Apply inside InTx, Unbatch calls Revoke there: in a
// transaction, the orders deadlock.
func (r *Repo) Batch(ctx context.Context, cart, coupon int64) error { // want Batch:`^locks\(table:st_carts ROW EXCLUSIVE@C0/L0, `
	return r.InTx(ctx, func(ctx context.Context) error {
		return r.Apply(ctx, cart, coupon) // want `lock-order inversion: rows of st_carts and rows of st_coupons are locked in opposite orders`
	})
}

func (r *Repo) Unbatch(ctx context.Context, cart, coupon int64) error { // want Unbatch:`^locks\(table:st_coupons ROW EXCLUSIVE@C0/L0, `
	return r.InTx(ctx, func(ctx context.Context) error {
		return r.Revoke(ctx, cart, coupon)
	})
}
