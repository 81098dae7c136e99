package fieldtables // want package:"sql=true edges=18"

// A repository that keeps its table in a field runs one table per
// instance: each call binds "UPDATE " + r.table + ... from the receiver it
// passes (a package variable set to a composite literal or to a
// constructor's result, a local literal), not from every table the
// package stores into the field. Found by a blind test: the union made
// every call lock every table (four false caller-row-order reports) and
// hid the real inversion.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Repo is a repository of one table.
type Repo struct{ table string }

// NewRepo returns the repository of a table.
func NewRepo(table string) *Repo { return &Repo{table: table} }

// Bump touches one row of the repository's table.
func (r *Repo) Bump(ctx context.Context, tx pgx.Tx, id int64) error { // want Bump:`sinks\(\{"UPDATE " \+ p0\.f0 \+ " SET updated_at = now\(\) WHERE id = \$1"\}@p2\)`
	_, err := tx.Exec(ctx, "UPDATE "+r.table+" SET updated_at = now() WHERE id = $1", id)
	return err
}

var (
	customers = &Repo{table: "ft_customers"}
	stock     = NewRepo("ft_stock")
)

// place and cancel bump a customer and a stock row in opposite orders.
func place(ctx context.Context, tx pgx.Tx, c, p int64) error {
	if err := customers.Bump(ctx, tx, c); err != nil {
		return err
	}
	return stock.Bump(ctx, tx, p) // want `lock-order inversion: rows of ft_customers and rows of ft_stock are locked in opposite orders`
}

func cancel(ctx context.Context, tx pgx.Tx, c, p int64) error {
	if err := stock.Bump(ctx, tx, p); err != nil {
		return err
	}
	return customers.Bump(ctx, tx, c)
}

// audit bumps two rows of local repositories, in one order only.
func audit(ctx context.Context, tx pgx.Tx, o, l int64) error {
	orders := &Repo{table: "ft_orders"}
	if err := orders.Bump(ctx, tx, o); err != nil {
		return err
	}
	return NewRepo("ft_lines").Bump(ctx, tx, l)
}
