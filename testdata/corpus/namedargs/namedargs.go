package namedargs // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const debit = "UPDATE accounts SET balance = balance - @amount WHERE id = @id"

// Transfer debits then credits in the caller's order, with pgx's named
// arguments: Transfer(a, b) and Transfer(b, a) at once deadlock.
func Transfer(ctx context.Context, pool *pgxpool.Pool, from, to, amount int64) error { // want Transfer:`locks\(.*row:accounts FOR NO KEY UPDATE@L0`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, debit, pgx.NamedArgs{"id": from, "amount": amount}); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + @amount WHERE id = @id", pgx.NamedArgs{"id": to, "amount": amount}) // want `row order chosen by the caller: namedargs.Transfer.func1 locks two rows of accounts, first the one keyed by from, then the one keyed by to`
		return err
	})
}

// TransferOrdered locks the lower key first: silent.
func TransferOrdered(ctx context.Context, pool *pgxpool.Pool, from, to, amount int64) error { // want TransferOrdered:`locks\(.*row:accounts FOR UPDATE@L0`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id IN (@a, @b) ORDER BY id FOR UPDATE", pgx.NamedArgs{"a": from, "b": to}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, debit, pgx.StrictNamedArgs{"id": from, "amount": amount}); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + @amount WHERE id = @id", pgx.NamedArgs{"id": to, "amount": amount})
		return err
	})
}

// HoldAll locks the caller's list of accounts in no defined order.
func HoldAll(ctx context.Context, pool *pgxpool.Pool, ids []int64) error { // want HoldAll:`locks\(.*row:accounts FOR UPDATE@L0`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SELECT 1 FROM accounts WHERE id = ANY(@ids) FOR UPDATE", pgx.NamedArgs{"ids": ids}) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of accounts`
		return err
	})
}
