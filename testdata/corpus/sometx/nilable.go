package sometx

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// A method that runs on the caller's transaction if it passes one, and on
// the pool if it passes nil.

// lockBasket locks a basket on tx, or on the pool when tx is nil.
func (r *Repo) lockBasket(ctx context.Context, tx pgx.Tx, id int64) error { // want lockBasket:`^locks\(table:st_baskets ROW EXCLUSIVE@p2, `
	var q DBTX = r.pool
	if tx != nil {
		q = tx
	}
	_, err := q.Exec(ctx, "UPDATE st_baskets SET n = n + 1 WHERE id = $1", id)
	return err
}

// lockVoucher is the same for vouchers.
func (r *Repo) lockVoucher(ctx context.Context, tx pgx.Tx, id int64) error { // want lockVoucher:`^locks\(table:st_vouchers ROW EXCLUSIVE@p2, `
	var q DBTX = r.pool
	if tx != nil {
		q = tx
	}
	_, err := q.Exec(ctx, "UPDATE st_vouchers SET n = n + 1 WHERE id = $1", id)
	return err
}

// Fill and Empty pass no transaction: autocommit, nothing held.
func (r *Repo) Fill(ctx context.Context, basket, voucher int64) error { // want Fill:`^locks\(table:st_baskets ROW EXCLUSIVE@F, `
	if err := r.lockBasket(ctx, nil, basket); err != nil {
		return err
	}
	return r.lockVoucher(ctx, nil, voucher)
}

func (r *Repo) Empty(ctx context.Context, basket, voucher int64) error { // want Empty:`^locks\(table:st_vouchers ROW EXCLUSIVE@F, `
	if err := r.lockVoucher(ctx, nil, voucher); err != nil {
		return err
	}
	return r.lockBasket(ctx, nil, basket)
}

// Redeem and Cancel pass their transaction: the orders deadlock.
func (r *Repo) Redeem(ctx context.Context, tx pgx.Tx, basket, voucher int64) error { // want Redeem:`^locks\(table:st_baskets ROW EXCLUSIVE@p2, `
	if err := r.lockBasket(ctx, tx, basket); err != nil {
		return err
	}
	return r.lockVoucher(ctx, tx, voucher) // want `lock-order inversion: rows of st_baskets and rows of st_vouchers are locked in opposite orders`
}

func (r *Repo) Cancel(ctx context.Context, tx pgx.Tx, basket, voucher int64) error { // want Cancel:`^locks\(table:st_vouchers ROW EXCLUSIVE@p2, `
	if err := r.lockVoucher(ctx, tx, voucher); err != nil {
		return err
	}
	return r.lockBasket(ctx, tx, basket)
}

// q returns the caller's transaction, or the pool when it has none.
func (r *Repo) q(tx pgx.Tx) DBTX { // want q:`^returns\(0=p1\(handle\|pool\)\)$`
	if tx != nil {
		return tx
	}
	return r.pool
}

// lockTicket and lockSeat run on q(tx).
func (r *Repo) lockTicket(ctx context.Context, tx pgx.Tx, id int64) error { // want lockTicket:`^locks\(table:st_tickets ROW EXCLUSIVE@p2, `
	_, err := r.q(tx).Exec(ctx, "UPDATE st_tickets SET n = n + 1 WHERE id = $1", id)
	return err
}

func (r *Repo) lockSeat(ctx context.Context, tx pgx.Tx, id int64) error { // want lockSeat:`^locks\(table:st_seats ROW EXCLUSIVE@p2, `
	_, err := r.q(tx).Exec(ctx, "UPDATE st_seats SET n = n + 1 WHERE id = $1", id)
	return err
}

// Book and Unbook pass no transaction: autocommit.
func (r *Repo) Book(ctx context.Context, ticket, seat int64) error { // want Book:`^locks\(table:st_tickets ROW EXCLUSIVE@F, `
	if err := r.lockTicket(ctx, nil, ticket); err != nil {
		return err
	}
	return r.lockSeat(ctx, nil, seat)
}

func (r *Repo) Unbook(ctx context.Context, ticket, seat int64) error { // want Unbook:`^locks\(table:st_seats ROW EXCLUSIVE@F, `
	if err := r.lockSeat(ctx, nil, seat); err != nil {
		return err
	}
	return r.lockTicket(ctx, nil, ticket)
}

// Reserve and Release pass their transaction: the orders deadlock.
func (r *Repo) Reserve(ctx context.Context, tx pgx.Tx, ticket, seat int64) error { // want Reserve:`^locks\(table:st_tickets ROW EXCLUSIVE@p2, `
	if err := r.lockTicket(ctx, tx, ticket); err != nil {
		return err
	}
	return r.lockSeat(ctx, tx, seat)
}

func (r *Repo) Release(ctx context.Context, tx pgx.Tx, ticket, seat int64) error { // want Release:`^locks\(table:st_seats ROW EXCLUSIVE@p2, `
	if err := r.lockSeat(ctx, tx, seat); err != nil {
		return err
	}
	return r.lockTicket(ctx, tx, ticket) // want `lock-order inversion: rows of st_seats and rows of st_tickets are locked in opposite orders`
}
