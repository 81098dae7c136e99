// want package:"sql=true edges=9"

// Package blog is ../configschema's code against a schema without the
// foreign key: no deadlock, whatever other module the process analyses.
package blog

import (
	"context"
	"database/sql"
)

// AddComment inserts a comment (no lock on its post: no foreign
// key here), then counts it in the audit row.
func AddComment(ctx context.Context, tx *sql.Tx, postID int64) error { // want AddComment:`^locks\(table:comments ROW EXCLUSIVE@p1, table:audit ROW EXCLUSIVE@p1, row:audit FOR NO KEY UPDATE@p1\) holds\[0 1 2\]$`
	if _, err := tx.ExecContext(ctx, "INSERT INTO comments (id, post_id, body) VALUES ($1, $1, 'hi')", postID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE audit SET events = events + 1 WHERE id = $1", postID)
	return err
}

// RenumberPost counts in the audit row, then changes the post's key (FOR
// UPDATE, which no comment's insert waits for or holds here).
func RenumberPost(ctx context.Context, tx *sql.Tx, postID int64) error { // want RenumberPost:`^locks\(table:audit ROW EXCLUSIVE@p1, row:audit FOR NO KEY UPDATE@p1, table:posts ROW EXCLUSIVE@p1, row:posts FOR UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.ExecContext(ctx, "UPDATE audit SET events = events + 1 WHERE id = $1", postID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE posts SET id = id + 1000 WHERE id = $1", postID)
	return err
}
