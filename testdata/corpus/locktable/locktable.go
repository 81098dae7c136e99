package locktable // want package:"sql=true edges=9"

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Migrator copies data between tables.
type Migrator struct {
	pool *pgxpool.Pool
}

// Snapshot freezes ta and then tb against writes with SHARE locks.
func (m *Migrator) Snapshot(ctx context.Context) error { // want Snapshot:`locks\(.*table:ta SHARE@L0.*table:tb SHARE@L0`
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE ta IN SHARE MODE"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE tb IN SHARE MODE"); err != nil { // want `lock-order inversion: table ta and table tb are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Touch writes tb and then ta: its ROW EXCLUSIVE table locks conflict with
// Snapshot's SHARE locks in the opposite order.
func (m *Migrator) Touch(ctx context.Context, id int64) error { // want Touch:`locks\(.*row:tb FOR NO KEY UPDATE@L0.*row:ta FOR NO KEY UPDATE@L0`
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE tb SET v = v + 1 WHERE id = $1", id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE ta SET v = v + 1 WHERE id = $1", id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Export pins tc and td with ACCESS SHARE locks, which only ACCESS EXCLUSIVE
// conflicts with.
func (m *Migrator) Export(ctx context.Context) error { // want Export:`locks\(.*table:tc ACCESS SHARE@L0.*table:td ACCESS SHARE@L0`
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE tc IN ACCESS SHARE MODE"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE td IN ACCESS SHARE MODE"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Count reads td and then tc with plain SELECTs: no conflict with Export.
func (m *Migrator) Count(ctx context.Context) (int64, error) { // want Count:`locks\(.*table:td ACCESS SHARE@L0.*table:tc ACCESS SHARE@L0`
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	var a, b int64
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM td").Scan(&a); err != nil {
		return 0, err
	}
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM tc").Scan(&b); err != nil {
		return 0, err
	}
	return a + b, tx.Commit(ctx)
}
