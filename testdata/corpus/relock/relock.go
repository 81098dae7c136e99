package relock // want package:"sql=true edges=16"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DBTX is what sqlc generates.
type DBTX interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
}

// LockMatches locks the matches, then their conditions.
func LockMatches(ctx context.Context, db DBTX, ids []int64) error { // want LockMatches:`row:matches FOR UPDATE@p1, .*row:match_conditions FOR UPDATE@p1\) holds`
	if _, err := db.Exec(ctx, "SELECT id FROM matches WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids); err != nil {
		return err
	}
	_, err := db.Exec(ctx, "SELECT id FROM match_conditions WHERE match_id = ANY($1) ORDER BY id FOR UPDATE", ids)
	return err
}

// DeleteSatisfied locks conditions, then deletes their matches, in one
// statement: conditions before matches.
func DeleteSatisfied(ctx context.Context, db DBTX, ids []int64) error { // want DeleteSatisfied:`row:match_conditions FOR UPDATE@p1, row:matches FOR UPDATE@p1\) holds`
	const deleteSatisfied = `WITH c AS (
		SELECT match_id FROM match_conditions WHERE match_id = ANY($1) FOR UPDATE
	) DELETE FROM matches WHERE id IN (SELECT match_id FROM c)`
	_, err := db.Exec(ctx, deleteSatisfied, ids) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of match_conditions \(FOR UPDATE\), several of them \(= ANY\(...\)\)`
	return err
}

// Process runs both in one transaction. DeleteSatisfied takes the matches
// again, but the transaction already holds them: it waits for nothing, and
// there is no inversion.
func Process(ctx context.Context, pool *pgxpool.Pool, ids []int64) error { // want Process:`^locks\(table:matches ROW SHARE@L0, `
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := LockMatches(ctx, tx, ids); err != nil {
			return err
		}
		return DeleteSatisfied(ctx, tx, ids)
	})
}

// Purge deletes without locking the matches first: conditions, then
// matches, against LockMatches' matches, then conditions.
func Purge(ctx context.Context, pool *pgxpool.Pool, ids []int64) error { // want Purge:`row:match_conditions FOR UPDATE@L0, row:matches FOR UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return DeleteSatisfied(ctx, tx, ids) // want `lock-order inversion: rows of match_conditions and rows of matches are locked in opposite orders` `unordered multi-row lock: DELETE takes rows of matches \(FOR UPDATE\), several of them \(IN \(sub-query\)\)`
	})
}
