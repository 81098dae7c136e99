package beginfunc

import (
	"context"
	"database/sql"
)

// Inventory moves stock with database/sql prepared statements.
type Inventory struct {
	db *sql.DB
}

// Reserve locks the stock row, then the reservation, with statements
// prepared on the transaction.
func (i *Inventory) Reserve(ctx context.Context, itemID int64) error { // want Reserve:`locks\(.*row:stock FOR NO KEY UPDATE@L0.*row:reservations FOR NO KEY UPDATE@L0`
	tx, err := i.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stock, err := tx.PrepareContext(ctx, "UPDATE stock SET reserved = reserved + 1 WHERE item_id = $1")
	if err != nil {
		return err
	}
	defer stock.Close()
	if _, err := stock.ExecContext(ctx, itemID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE reservations SET qty = qty + 1 WHERE item_id = $1", itemID); err != nil {
		return err
	}
	return tx.Commit()
}

// Expire locks the reservation, then the stock, through a statement
// prepared on the database and bound to the transaction with tx.Stmt.
func (i *Inventory) Expire(ctx context.Context, itemID int64) error { // want Expire:`locks\(.*row:reservations FOR UPDATE@L0.*row:stock FOR NO KEY UPDATE@L0`
	release, err := i.db.PrepareContext(ctx, "UPDATE stock SET reserved = reserved - 1 WHERE item_id = $1")
	if err != nil {
		return err
	}
	defer release.Close()

	tx, err := i.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM reservations WHERE item_id = $1", itemID); err != nil {
		return err
	}
	if _, err := tx.Stmt(release).ExecContext(ctx, itemID); err != nil { // want `lock-order inversion: rows of reservations and rows of stock are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Restock runs the prepared statement on the database itself, outside any
// transaction: silent.
func (i *Inventory) Restock(ctx context.Context, itemID int64) error { // want Restock:`locks\(.*row:reservations FOR NO KEY UPDATE@p0\.db.*row:stock FOR NO KEY UPDATE@p0\.db`
	stmt, err := i.db.PrepareContext(ctx, "UPDATE stock SET reserved = 0 WHERE item_id = $1")
	if err != nil {
		return err
	}
	defer stmt.Close()
	if _, err := i.db.ExecContext(ctx, "UPDATE reservations SET qty = 0 WHERE item_id = $1", itemID); err != nil {
		return err
	}
	_, err = stmt.ExecContext(ctx, itemID)
	return err
}
