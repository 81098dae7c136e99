package nilhandle // want package:"sql=true edges=28"

// A nil handle is no transaction: a caller that passes nil where a function
// takes the caller's transaction (a unit test driving the code against a
// fake repository) holds nothing from one such call into the next.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Slots keeps the run queue and its slots.
type Slots struct {
	pool *pgxpool.Pool
}

// Flush updates the queue, then the slot, on the caller's transaction.
func (s *Slots) Flush(ctx context.Context, tx pgx.Tx, id int64) error { // want Flush:`^locks\(table:nh_queue ROW EXCLUSIVE@p2, row:nh_queue FOR NO KEY UPDATE@p2, table:nh_slots ROW EXCLUSIVE@p2, row:nh_slots FOR NO KEY UPDATE@p2\) holds\[0 1 2 3\]$`
	if _, err := tx.Exec(ctx, "UPDATE nh_queue SET n = n + 1 WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE nh_slots SET n = n + 1 WHERE id = $1", id)
	return err
}

// Replay flushes twice without a transaction: the nil handle holds nothing
// across the calls, so there is no second connection waiting on the first.
func (s *Slots) Replay(ctx context.Context, id int64) error { // want Replay:`^locks\(table:nh_queue ROW EXCLUSIVE@F, row:nh_queue FOR NO KEY UPDATE@F, table:nh_slots ROW EXCLUSIVE@F, row:nh_slots FOR NO KEY UPDATE@F, table:nh_queue ROW EXCLUSIVE@F, row:nh_queue FOR NO KEY UPDATE@F, table:nh_slots ROW EXCLUSIVE@F, row:nh_slots FOR NO KEY UPDATE@F\)$`
	if err := s.Flush(ctx, nil, id); err != nil {
		return err
	}
	return s.Flush(ctx, nil, id)
}

// Leak keeps its first transaction open while a second one flushes the
// same rows: the second waits for the first, which waits for the
// application.
func (s *Slots) Leak(ctx context.Context, id int64) error { // want Leak:`^locks\(.*row:nh_slots FOR NO KEY UPDATE@L1, .*row:nh_slots FOR NO KEY UPDATE@L0\)$`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := s.Flush(ctx, tx, id); err != nil {
		return err
	}
	other, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer other.Rollback(ctx)
	if err := s.Flush(ctx, other, id); err != nil { // want `application self-deadlock: nilhandle\.Slots\.Leak holds rows of nh_queue \(FOR NO KEY UPDATE\) and then waits for rows of nh_queue \(FOR NO KEY UPDATE\) on another connection` `application self-deadlock: nilhandle\.Slots\.Leak holds rows of nh_slots .* on another connection` `application deadlock: rows of nh_queue and rows of nh_slots are locked in opposite orders`
		return err
	}
	if err := other.Commit(ctx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
