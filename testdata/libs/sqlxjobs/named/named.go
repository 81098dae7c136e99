package named // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Move is a named query's argument: fields by db tag, else lower-cased.
type Move struct {
	ID     int64 `db:"id"`
	Amount int64
}

// TransferMap debits then credits in the caller's order, with sqlx's named
// queries bound from map literals: TransferMap(a, b) and (b, a) deadlock.
func TransferMap(ctx context.Context, db *sqlx.DB, from, to, amount int64) error { // want TransferMap:`locks\(.*row:wallets FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.NamedExecContext(ctx, "UPDATE wallets SET balance = balance - :amount WHERE id = :id", map[string]any{"id": from, "amount": amount}); err != nil {
		return err
	}
	if _, err := tx.NamedExecContext(ctx, "UPDATE wallets SET balance = balance + :amount WHERE id = :id", map[string]any{"id": to, "amount": amount}); err != nil { // want `row order chosen by the caller: named.TransferMap locks two rows of wallets, first the one keyed by from, then the one keyed by to`
		return err
	}
	return tx.Commit()
}

// TransferStruct does the same with struct literals.
func TransferStruct(ctx context.Context, db *sqlx.DB, from, to, amount int64) error { // want TransferStruct:`locks\(.*row:purses FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.NamedExecContext(ctx, "UPDATE purses SET balance = balance - :amount WHERE id = :id", Move{ID: from, Amount: amount}); err != nil {
		return err
	}
	if _, err := sqlx.NamedExecContext(ctx, tx, "UPDATE purses SET balance = balance + :amount::bigint WHERE id = :id", &Move{ID: to, Amount: amount}); err != nil { // want `row order chosen by the caller: named.TransferStruct locks two rows of purses, first the one keyed by from, then the one keyed by to`
		return err
	}
	return tx.Commit()
}

// TransferOrdered updates the lower key first: silent.
func TransferOrdered(ctx context.Context, db *sqlx.DB, from, to, amount int64) error { // want TransferOrdered:`locks\(.*row:pockets FOR NO KEY UPDATE@L0`
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	first, second := from, to
	delta := -amount
	if to < from {
		first, second, delta = to, from, amount
	}
	if _, err := tx.NamedExecContext(ctx, "UPDATE pockets SET balance = balance + :delta WHERE id = :id", map[string]any{"id": first, "delta": delta}); err != nil {
		return err
	}
	if _, err := tx.NamedExecContext(ctx, "UPDATE pockets SET balance = balance - :delta WHERE id = :id", map[string]any{"id": second, "delta": delta}); err != nil {
		return err
	}
	return tx.Commit()
}
