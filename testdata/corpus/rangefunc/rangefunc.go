// Package rangefunc locks rows in range-over-func loops (Go 1.23): the
// loop's body is a closure the iterator calls once per element, which the
// analysis applies where the loop runs.
package rangefunc

import (
	"context"
	"iter"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
)

func lockAccount(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// creditKeys locks one account per key of a map, in the map's order.
func creditKeys(ctx context.Context, tx pgx.Tx, credits map[int64]int64) error {
	for id := range maps.Keys(credits) {
		if err := lockAccount(ctx, tx, id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR UPDATE\) are taken once per iteration of a loop over a map`
			return err
		}
	}
	return nil
}

// creditPairs runs the statement in the loop's body itself, keyed by the
// map's key.
func creditPairs(ctx context.Context, tx pgx.Tx, credits map[int64]int64) error {
	for id, amount := range maps.All(credits) {
		if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $2 WHERE id = $1", id, amount); err != nil { // want `lock order set by a loop: rows of accounts \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a map`
			return err
		}
	}
	return nil
}

// creditSorted is the fix: the keys are sorted before the loop.
func creditSorted(ctx context.Context, tx pgx.Tx, credits map[int64]int64) error {
	for _, id := range slices.All(slices.Sorted(maps.Keys(credits))) {
		if err := lockAccount(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// lockListed locks the accounts in the order the caller lists them.
func lockListed(ctx context.Context, tx pgx.Tx, ids []int64) error {
	for id := range slices.Values(ids) {
		if err := lockAccount(ctx, tx, id); err != nil { // want `lock order set by a loop: rows of accounts \(FOR UPDATE\) are taken once per iteration of a loop over the slice ids in the order the caller passes it`
			return err
		}
	}
	return nil
}

// lockListedSorted sorts the caller's list first.
func lockListedSorted(ctx context.Context, tx pgx.Tx, ids []int64) error {
	slices.Sort(ids)
	for _, id := range slices.Backward(ids) {
		if err := lockAccount(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// pending is an iterator of the program's own: its order is whatever it
// yields, which the analysis cannot tell, so it judges none.
func pending(ids []int64) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for _, id := range ids {
			if id > 0 && !yield(id) {
				return
			}
		}
	}
}

// lockPending locks what a program's own iterator yields: not judged.
func lockPending(ctx context.Context, tx pgx.Tx, ids []int64) error {
	for id := range pending(ids) {
		if err := lockAccount(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// settleEach begins a transaction per element: nothing is held from one
// to the next.
func settleEach(ctx context.Context, db *pgx.Conn, credits map[int64]int64) error {
	for id := range maps.Keys(credits) {
		tx, err := db.Begin(ctx)
		if err != nil {
			return err
		}
		if err := lockAccount(ctx, tx, id); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}
