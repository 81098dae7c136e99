// Package store retries its updates through retry, whose plain variant has
// no facts: what the per-package cache records of it is an absent fact of a
// path whose test variant only is analysed.
package store

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/variants/retry"
)

// Store updates parcels.
type Store struct{ Pool *pgxpool.Pool }

// Touch marks a parcel seen.
func (s *Store) Touch(ctx context.Context, id int64) error {
	return retry.Do(func() error {
		_, err := s.Pool.Exec(ctx, "UPDATE parcels SET seen = now() WHERE id = $1", id)
		return err
	})
}
