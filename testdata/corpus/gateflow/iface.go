package gateflow

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// mixer is implemented by blender: a call through it may reach blender.mix
// from a path that holds no gate.
type mixer interface {
	mix(ctx context.Context, tx pgx.Tx) error
}

type blender struct{}

// mix locks the bowls, then the spoons.
func (blender) mix(ctx context.Context, tx pgx.Tx) error { // want mix:`^locks\(table:gf_bowls ROW EXCLUSIVE@p2, `
	if _, err := tx.Exec(ctx, "UPDATE gf_bowls SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_spoons SET n = n + 1 WHERE id = 1") // want `lock-order inversion: rows of gf_bowls and rows of gf_spoons are locked in opposite orders`
	return err
}

// Blend calls blender.mix directly, behind the gate.
func Blend(ctx context.Context, tx pgx.Tx) error { // want Blend:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	return blender{}.mix(ctx, tx)
}

// Mix calls it through the interface, with no gate.
func Mix(ctx context.Context, tx pgx.Tx, m mixer) error { // want Mix:`^locks\(table:gf_bowls ROW EXCLUSIVE@p1, `
	return m.mix(ctx, tx)
}

// Unmix locks the spoons, then the bowls, behind the gate.
func Unmix(ctx context.Context, tx pgx.Tx) error { // want Unmix:`^locks\(advisory:\(930\) exclusive@p1, `
	if err := lockStock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE gf_spoons SET n = n - 1 WHERE id = 1"); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE gf_bowls SET n = n - 1 WHERE id = 1")
	return err
}
