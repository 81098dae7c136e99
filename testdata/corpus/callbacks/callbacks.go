package callbacks // want package:"sql=true edges=15"

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const tenantLock = 100

// Store runs work for tenants.
type Store struct{ pool *pgxpool.Pool }

// WithTenantLock begins a transaction, takes the tenant lock, and runs fn in
// that transaction while the lock is held.
func (s *Store) WithTenantLock(ctx context.Context, fn func(tx pgx.Tx) error) error { // want WithTenantLock:`^locks\(advisory:\(100\) exclusive@L0\) invokes\(p2\(0=L0\(transaction\)\) holding\[0\]\)$`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", tenantLock); err != nil {
		return fmt.Errorf("tenant lock: %w", err)
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// RenameTenant runs under the tenant lock and then locks the tenant row.
func (s *Store) RenameTenant(ctx context.Context, id int64, name string) error { // want RenameTenant:`advisory:\(100\) exclusive@C0/L0, .*row:tenants FOR NO KEY UPDATE@C0/L0\)$`
	return s.WithTenantLock(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "UPDATE tenants SET name = $2 WHERE id = $1", id, name) // want `lock-order inversion: advisory lock \(100\) and rows of tenants are locked in opposite orders`
		return err
	})
}

// SuspendTenant locks the tenant row first, then takes the tenant lock: the
// opposite order.
func (s *Store) SuspendTenant(ctx context.Context, id int64) error { // want SuspendTenant:`row:tenants FOR NO KEY UPDATE@L0, advisory:\(100\) exclusive@L0\)$`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tenants SET suspended = true WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", tenantLock); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// ResumeTenant takes the tenant lock first, like RenameTenant: no cycle.
func (s *Store) ResumeTenant(ctx context.Context, id int64) error { // want ResumeTenant:`row:tenant_jobs FOR NO KEY UPDATE@C0/L0\)$`
	return s.WithTenantLock(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "UPDATE tenant_jobs SET paused = false WHERE tenant_id = $1", id)
		return err
	})
}

// underTenantLock takes the tenant lock in the caller's transaction, then
// runs the caller's statement: the statement waits while the lock is held.
func underTenantLock(ctx context.Context, tx pgx.Tx, query string, args ...any) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", tenantLock); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, query, args...)
	return err
}

// RaiseQuota updates the quota under the tenant lock.
func (s *Store) RaiseQuota(ctx context.Context, id int64) error { // want RaiseQuota:`^locks\(advisory:\(100\) exclusive@L0, .*row:tenant_quotas FOR NO KEY UPDATE@L0\)$`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return underTenantLock(ctx, tx, "UPDATE tenant_quotas SET quota = quota + 1 WHERE tenant_id = $1", id) // want `lock-order inversion: advisory lock \(100\) and rows of tenant_quotas are locked in opposite orders`
	})
}

// ResetQuota locks the quota row, then takes the tenant lock.
func (s *Store) ResetQuota(ctx context.Context, id int64) error { // want ResetQuota:`row:tenant_quotas FOR NO KEY UPDATE@L0, advisory:\(100\) exclusive@L0\)$`
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE tenant_quotas SET quota = 0 WHERE tenant_id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", tenantLock)
		return err
	})
}
