package branches // want package:"sql=true edges=26"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Sync copies data between a tenant and its settings.
type Sync struct {
	pool *pgxpool.Pool
}

// Apply locks the tenant and its settings in an order that depends on the
// direction of the sync: the two branches can deadlock with each other.
func (s *Sync) Apply(ctx context.Context, tenantID int64, fromSettings bool) error { // want Apply:`locks\(.*row:tenants FOR UPDATE@L0.*row:tenant_settings FOR NO KEY UPDATE@L0.*row:tenant_settings FOR UPDATE@L0.*row:tenants FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if fromSettings {
		if _, err := tx.Exec(ctx, "SELECT id FROM tenants WHERE id = $1 FOR UPDATE", tenantID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE tenant_settings SET synced_at = now() WHERE tenant_id = $1", tenantID); err != nil {
			return err
		}
	} else {
		if _, err := tx.Exec(ctx, "SELECT id FROM tenant_settings WHERE tenant_id = $1 FOR UPDATE", tenantID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE tenants SET synced_at = now() WHERE id = $1", tenantID); err != nil { // want `lock-order inversion: rows of tenant_settings and rows of tenants are locked in opposite orders`
			return err
		}
	}
	return tx.Commit(ctx)
}

// ApplyAll processes projects one at a time, project then its quota, and
// commits every iteration: the quota is never held when the next project is
// locked.
func (s *Sync) ApplyAll(ctx context.Context, projectIDs []int64) error { // want ApplyAll:`locks\(.*row:projects FOR NO KEY UPDATE@L0.*row:quotas FOR NO KEY UPDATE@L0`
	for _, id := range projectIDs {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE projects SET synced_at = now() WHERE id = $1", id); err != nil {
			tx.Rollback(ctx)
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE quotas SET used = used + 1 WHERE project_id = $1", id); err != nil {
			tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}

// ApplyBatch processes projects in one transaction: the quota of one
// project is still held when the next project is locked, so two batches
// with the projects in different orders can deadlock, on the workspaces
// themselves (the loop's order). Not on a quota against a workspace: a
// batch waits only for the quota of the workspace it holds, which the
// other can hold only after locking that workspace.
func (s *Sync) ApplyBatch(ctx context.Context, workspaceIDs []int64) error { // want ApplyBatch:`locks\(.*row:workspaces FOR NO KEY UPDATE@L0.*row:workspace_quotas FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for _, id := range workspaceIDs {
		if _, err := tx.Exec(ctx, "UPDATE workspaces SET synced_at = now() WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of workspaces \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice workspaceIDs`
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE workspace_quotas SET used = used + 1 WHERE workspace_id = $1", id); err != nil { // want `lock order set by a loop: rows of workspace_quotas`
			return err
		}
	}
	return tx.Commit(ctx)
}
