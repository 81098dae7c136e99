package backoff // want package:"sql=true edges=0"

// backoff retries a unit of work that PostgreSQL aborted to break a
// deadlock or a serialization failure.

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Retry runs fn until it succeeds, fails with an error that retrying does
// not cure, or has been tried attempts times.
func Retry(ctx context.Context, attempts int, fn func() error) error { // want Retry:`^invokes\(p2\(\)\)$`
	var err error
	for i := range attempts {
		if err = fn(); err == nil || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * 10 * time.Millisecond):
		}
	}
	return err
}

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}
