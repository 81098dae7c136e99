// Package notify queues a message for an account; billing calls it.
package notify

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Queue queues a message.
func Queue(ctx context.Context, tx pgx.Tx, account int64, text string) error {
	_, err := tx.Exec(ctx, "INSERT INTO outbox (account_id, text) VALUES ($1, $2)", account, text)
	return err
}
