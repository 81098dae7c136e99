// Package portimpl implements the service's ports on a backend handed in at
// run time: the analysis cannot see the SQL it runs.
package portimpl

import "context"

// Backend is whatever runs the SQL.
type Backend interface {
	Do(ctx context.Context, sql string, args []any) error
}

// DB implements port.Store and port.TxRunner without importing port.
type DB struct {
	b Backend
}

// Exec runs one statement on the context's transaction, if any.
func (d *DB) Exec(ctx context.Context, sql string, args ...any) error {
	return d.b.Do(ctx, sql, args)
}

// InTx runs fn in a transaction.
func (d *DB) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if err := d.b.Do(ctx, "BEGIN", nil); err != nil {
		return err
	}
	if err := fn(ctx); err != nil {
		_ = d.b.Do(ctx, "ROLLBACK", nil)
		return err
	}
	return d.b.Do(ctx, "COMMIT", nil)
}
