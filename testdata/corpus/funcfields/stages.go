package funcfields

import (
	"context"
	"database/sql"
)

// pipeline keeps its stages as a slice of functions: a call on one of its
// elements runs the functions of the slice literal, in its order.
type pipeline struct {
	db     *sql.DB
	stages []func(ctx context.Context, tx *sql.Tx, id int64) error
}

func newPipeline(db *sql.DB) *pipeline {
	p := &pipeline{db: db}
	p.stages = []func(ctx context.Context, tx *sql.Tx, id int64) error{closeCart, useCoupon}
	return p
}

func closeCart(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE carts SET state = 'closed' WHERE id = $1`, id)
	return err
}

func useCoupon(ctx context.Context, tx *sql.Tx, id int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE coupons SET used = used + 1 WHERE id = $1`, id)
	return err
}

// run runs the stages forward: carts, then coupons.
func (p *pipeline) run(ctx context.Context, id int64) error { // want run:`^locks\(table:carts ROW EXCLUSIVE@L0, row:carts FOR NO KEY UPDATE@L0, table:coupons ROW EXCLUSIVE@L0, row:coupons FOR NO KEY UPDATE@L0\)$`
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stage := range p.stages {
		if err := stage(ctx, tx, id); err != nil { // want `(?s)lock-order inversion: rows of carts and rows of coupons are locked in opposite orders.*calls funcfields.useCoupon`
			return err
		}
	}
	return tx.Commit()
}

// rewind runs them backward: coupons, then carts.
func (p *pipeline) rewind(ctx context.Context, id int64) error { // want rewind:`^locks\(table:coupons ROW EXCLUSIVE@L0, row:coupons FOR NO KEY UPDATE@L0, table:carts ROW EXCLUSIVE@L0, row:carts FOR NO KEY UPDATE@L0\)$`
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i := len(p.stages) - 1; i >= 0; i-- {
		if err := p.stages[i](ctx, tx, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Checkout wires the pipeline.
func Checkout(ctx context.Context, db *sql.DB) error { // want Checkout:`^locks\(.*row:carts .*row:coupons .*row:coupons .*row:carts `
	p := newPipeline(db)
	if err := p.run(ctx, 1); err != nil {
		return err
	}
	return p.rewind(ctx, 1)
}
