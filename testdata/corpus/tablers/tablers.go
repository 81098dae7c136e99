package tablers

// The package declares TableName methods the analysis cannot read a
// constant from (an interface's, a generic type's) beside SQL it analyses:
// it used to make the analysis panic.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Tabler is GORM's interface for a model that names its table.
type Tabler interface{ TableName() string }

// Page is a generic type with a TableName method: it has no body to read
// until it is instantiated.
type Page[T any] struct{ Items []T }

// TableName names the table of a page.
func (Page[T]) TableName() string { return "pages" }

// Account names its table with a constant.
type Account struct{ ID int64 }

// TableName names the table of accounts.
func (Account) TableName() string { return "accounts" } // want TableName:`table\("accounts"\)`

// transfer and audit take the same two tables in opposite orders.
func transfer(ctx context.Context, tx pgx.Tx, from, ledger int64) error {
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE ledgers SET total = total - 1 WHERE id = $1", ledger) // want `lock-order inversion: rows of accounts and rows of ledgers are locked in opposite orders`
	return err
}

func audit(ctx context.Context, tx pgx.Tx, from, ledger int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM ledgers WHERE id = $1 FOR UPDATE", ledger); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", from)
	return err
}
