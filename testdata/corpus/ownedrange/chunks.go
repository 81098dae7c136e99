package ownedrange // want package:"sql=true edges=2"

// A range of the rows that belong to one parent (the chunks of one file
// between two offsets) is read with one predicate and one plan by every
// execution: its rows come in one order. A range across all parents is a
// set each caller chooses.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ZeroChunks locks the chunks of one file between two indexes.
func ZeroChunks(ctx context.Context, tx pgx.Tx, inode int64, from, to int) error { // want ZeroChunks:`^locks\(table:or_chunks ROW SHARE@p1, row:or_chunks FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "SELECT indx FROM or_chunks WHERE inode = $1 AND indx > $2 AND indx < $3 FOR UPDATE", inode, from, to)
	return err
}

// ExpireChunks locks the chunks of every file written before a time.
func ExpireChunks(ctx context.Context, tx pgx.Tx, before int64) error { // want ExpireChunks:`^locks\(table:or_chunks ROW SHARE@p1, row:or_chunks FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, "SELECT indx FROM or_chunks WHERE written_at < $1 FOR UPDATE", before) // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of or_chunks \(FOR UPDATE\), several of them \(a range\)`
	return err
}
