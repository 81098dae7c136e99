// Package blog has deadlocks that exist only through foreign keys: no query
// names the rows the database locks for them. Run pglockorder with
// -schema=migrations to see them.
package blog

import (
	"context"
	"database/sql"
)

// AddComment inserts a comment, which makes PostgreSQL lock the post FOR KEY
// SHARE (the foreign-key check), and then counts it in the audit row.
func AddComment(ctx context.Context, db *sql.DB, postID int64, body string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO comments (post_id, body) VALUES ($1, $2)", postID, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE audit SET events = events + 1 WHERE id = $1", postID); err != nil {
		return err
	}
	return tx.Commit()
}

// RenumberPost counts in the audit row first, then changes the post's
// primary key, which locks it FOR UPDATE: that conflicts with the FOR KEY
// SHARE of AddComment, which holds the post while it waits for the audit
// row.
func RenumberPost(ctx context.Context, db *sql.DB, postID, newID int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE audit SET events = events + 1 WHERE id = $1", postID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE posts SET id = $2 WHERE id = $1", postID, newID); err != nil {
		return err
	}
	return tx.Commit()
}

// Like inserts a like (FOR KEY SHARE on the post), then bumps a counter.
func Like(ctx context.Context, db *sql.DB, postID int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO likes (post_id) VALUES ($1)", postID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE counters SET n = n + 1 WHERE id = $1", postID); err != nil {
		return err
	}
	return tx.Commit()
}

// Retitle bumps the counter, then changes the post's title: a non-key
// update (FOR NO KEY UPDATE), which does not conflict with the FOR KEY
// SHARE of Like. The opposite order is no deadlock.
func Retitle(ctx context.Context, db *sql.DB, postID int64, title string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE counters SET n = n + 1 WHERE id = $1", postID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE posts SET title = $2 WHERE id = $1", postID, title); err != nil {
		return err
	}
	return tx.Commit()
}

// DeleteAuthor deletes an author: the author row is locked FOR UPDATE and
// then ON DELETE CASCADE deletes, and locks, the author's books.
func DeleteAuthor(ctx context.Context, db *sql.DB, authorID int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM authors WHERE id = $1", authorID); err != nil {
		return err
	}
	return tx.Commit()
}

// RetitleBook writes a book, then updates its author's count: against
// DeleteAuthor, which holds the author while its cascade waits for the book.
func RetitleBook(ctx context.Context, db *sql.DB, authorID int64, title string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE books SET title = $2 WHERE author_id = $1", authorID, title); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE authors SET books = books WHERE id = $1", authorID); err != nil {
		return err
	}
	return tx.Commit()
}
