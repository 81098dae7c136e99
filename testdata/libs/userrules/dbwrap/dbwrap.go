// Package dbwrap stands for a database wrapper the analysis cannot see
// into: it imports no database API, and runs SQL through a driver it is
// handed at run time.
package dbwrap

import "context"

// Backend is whatever runs the SQL.
type Backend interface {
	Do(ctx context.Context, sql string, args []any) error
}

// Conn runs SQL on a backend.
type Conn struct {
	b Backend
}

// Run runs one statement.
func (c *Conn) Run(ctx context.Context, sql string, args ...any) error {
	return c.b.Do(ctx, sql, args)
}

// Atomically runs fn in a transaction.
func (c *Conn) Atomically(ctx context.Context, fn func(tx *Conn) error) error {
	if err := c.b.Do(ctx, "BEGIN", nil); err != nil {
		return err
	}
	if err := fn(c); err != nil {
		_ = c.b.Do(ctx, "ROLLBACK", nil)
		return err
	}
	return c.b.Do(ctx, "COMMIT", nil)
}

// Exec runs one statement on c: a package-level function, declared as a
// sink too.
func Exec(ctx context.Context, c *Conn, sql string, args ...any) error {
	return c.Run(ctx, sql, args...)
}
