package upsertsource // want package:"sql=true edges=3"

// An INSERT ... ON CONFLICT DO UPDATE, or an advisory lock taken per row,
// locks in the order its SELECT yields the rows. A SELECT that reads a CTE
// sorted by the key yields them in that order; one that reads a CTE of one
// row locks one. Only the order of the caller's array is no order.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// BumpUnsorted upserts the caller's keys in the order of the array.
func BumpUnsorted(ctx context.Context, tx pgx.Tx, keys []string) error { // want BumpUnsorted:`^locks\(table:us_counters ROW EXCLUSIVE@p1, row:us_counters FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, bumpUnsorted, keys) // want `unordered multi-row lock: INSERT \.\.\. ON CONFLICT DO UPDATE takes rows of us_counters \(FOR UPDATE\), several of them \(the rows of a SELECT\)`
	return err
}

const bumpUnsorted = `WITH input AS (SELECT unnest($1::text[]) AS key)
INSERT INTO us_counters (key, n) SELECT i.key, 1 FROM input i
ON CONFLICT (key) DO UPDATE SET n = us_counters.n + 1`

// BumpSorted sorts the keys in the CTE: every transaction locks them in key
// order.
func BumpSorted(ctx context.Context, tx pgx.Tx, keys []string) error { // want BumpSorted:`^locks\(table:us_counters ROW EXCLUSIVE@p1, row:us_counters FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, `WITH input AS (
    SELECT key FROM (SELECT unnest($1::text[]) AS key) AS k ORDER BY key
)
INSERT INTO us_counters (key, n) SELECT i.key, 1 FROM input i
ON CONFLICT (key) DO UPDATE SET n = us_counters.n + 1`, keys)
	return err
}

// ClaimLease upserts one row, built from the parameters in a CTE and kept
// only when no other holder's lease is live.
func ClaimLease(ctx context.Context, tx pgx.Tx, day string, holder string) error { // want ClaimLease:`^locks\(table:us_leases ROW EXCLUSIVE@p1, row:us_leases FOR UPDATE@p1\) holds\[0 1\]$`
	_, err := tx.Exec(ctx, `WITH input AS (
    SELECT $1::date AS day, $2::text AS holder
), free AS (
    SELECT day, holder FROM input
    WHERE NOT EXISTS (SELECT 1 FROM us_leases WHERE holder <> $2 AND expires_at > now())
)
INSERT INTO us_leases (day, holder, expires_at) SELECT f.day, f.holder, now() + interval '1 minute' FROM free f
ON CONFLICT (day) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`, day, holder)
	return err
}

// LockKeysSorted takes one advisory key per element, in the order of the
// CTE that sorts them.
func LockKeysSorted(ctx context.Context, tx pgx.Tx, ids []int64) error { // want LockKeysSorted:`^locks\(advisory@corpus/upsertsource/counters\.go:52:19 exclusive@p1\) holds\[0\]$`
	_, err := tx.Exec(ctx, `WITH input AS (SELECT unnest($1::bigint[]) AS id ORDER BY id)
SELECT pg_advisory_xact_lock(i.id) FROM input i`, ids)
	return err
}

// LockKeysUnsorted takes them in the order of the caller's array.
func LockKeysUnsorted(ctx context.Context, tx pgx.Tx, ids []int64) error { // want LockKeysUnsorted:`^locks\(advisory@corpus/upsertsource/counters\.go:59:19 exclusive@p1\) holds\[0\]$`
	_, err := tx.Exec(ctx, lockKeysUnsorted, ids) // want `unordered multi-row lock: pg_advisory_xact_lock is called once per row`
	return err
}

const lockKeysUnsorted = `WITH input AS (SELECT unnest($1::bigint[]) AS id)
SELECT pg_advisory_xact_lock(i.id) FROM input i`
