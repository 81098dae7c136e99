// want package:"sql=true edges=16"

// Package blog deadlocks only through a foreign key: the per-package
// drivers see it because the configuration names the schema.
package blog

import (
	"context"
	"database/sql"
)

// AddComment inserts a comment (FOR KEY SHARE on its post, by the foreign
// key), then counts it in the audit row.
func AddComment(ctx context.Context, tx *sql.Tx, postID int64) error { // want AddComment:`^locks\(table:comments ROW EXCLUSIVE@p1, table:posts ROW SHARE@p1, row:posts FOR KEY SHARE@p1, table:audit ROW EXCLUSIVE@p1, row:audit FOR NO KEY UPDATE@p1\) holds\[0 1 2 3 4\]$`
	if _, err := tx.ExecContext(ctx, "INSERT INTO comments (id, post_id, body) VALUES ($1, $1, 'hi')", postID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE audit SET events = events + 1 WHERE id = $1", postID)
	return err
}

// RenumberPost counts in the audit row, then changes the post's key (FOR
// UPDATE, which waits for the comment's FOR KEY SHARE).
func RenumberPost(ctx context.Context, tx *sql.Tx, postID int64) error { // want RenumberPost:`^locks\(table:audit ROW EXCLUSIVE@p1, row:audit FOR NO KEY UPDATE@p1, table:posts ROW EXCLUSIVE@p1, row:posts FOR UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.ExecContext(ctx, "UPDATE audit SET events = events + 1 WHERE id = $1", postID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE posts SET id = id + 1000 WHERE id = $1", postID) // want `lock-order inversion: rows of audit and rows of posts are locked in opposite orders`
	return err
}
