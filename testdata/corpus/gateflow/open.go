package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Helpers some of whose calls the analysis cannot list: the gate their
// callers here hold gates nothing, since another call may hold none.

// pour locks the jugs, then the cups; its callers here hold the gate, but
// it is also kept as a function value, which anything may call.
func pour(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_jugs SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_cups SET n = n + 1 WHERE id = 1") // want `lock-order inversion: rows of gf_cups and rows of gf_jugs are locked in opposite orders`
	return err
}

// Pourer is pour, handed out.
var Pourer = pour

// Pour calls pour behind the gate.
func Pour(ctx context.Context, tx pgx.Tx) error { // want Pour:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	return pour(ctx, tx)
}

// Fill locks the cups, then the jugs, behind the gate.
func Refill(ctx context.Context, tx pgx.Tx) error { // want Refill:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_cups SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_jugs SET n = n - 1 WHERE id = 1")
	return err
}

// stir locks the pots, then the pans; one caller runs it in a goroutine,
// after which its gate may be long gone.
func stir(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "UPDATE gf_pots SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_pans SET n = n + 1 WHERE id = 1") // want `lock-order inversion: rows of gf_pans and rows of gf_pots are locked in opposite orders`
	return err
}

// Stir starts stir behind the gate, without waiting for it.
func Stir(ctx context.Context, tx pgx.Tx) error { // want Stir:`^locks\(advisory:\(930\) exclusive@p1\)`
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	go stir(ctx, tx)
	return nil
}

// Unstir locks the pans, then the pots, behind the gate.
func Unstir(ctx context.Context, tx pgx.Tx) error { // want Unstir:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_pans SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_pots SET n = n - 1 WHERE id = 1")
	return err
}
