package advisory

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Keys named by a string, hashed in SQL: the Go constant bound to $1 makes
// them the same lock at both sites.
const reportsLock = "reports"

const otherLock = "exports"

// RebuildReports takes the named lock, then the report rows.
func RebuildReports(ctx context.Context, pool *pgxpool.Pool) error { // want RebuildReports:`advisory:\(hashtext\('reports'\)\) exclusive@L0, `
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", reportsLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE report_rows SET stale = false") // want `lock-order inversion: advisory lock \(hashtext\('reports'\)\) and rows of report_rows`
		return err
	})
}

// InvalidateReport takes a report row, then the named lock: the opposite
// order.
func InvalidateReport(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want InvalidateReport:`, advisory:\(hashtext\('reports'\)\) exclusive@L0\)$`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE report_rows SET stale = true WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", reportsLock)
		return err
	})
}

// InvalidateExport uses another name: another lock, no cycle.
func InvalidateExport(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want InvalidateExport:`, advisory:\(hashtext\('exports'\)\) exclusive@L0\)$`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE report_rows SET stale = true WHERE id = $1", id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", otherLock)
		return err
	})
}
