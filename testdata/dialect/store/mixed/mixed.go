// want package:"sql=true edges=12"

// Package mixed imports both a MySQL and a PostgreSQL driver: ambiguous,
// so it is analysed as PostgreSQL (a dialects: entry would decide), except
// for statements whose syntax PostgreSQL rejects.
package mixed

import (
	"context"
	"database/sql"

	_ "github.com/go-sql-driver/mysql" // for the import tool
	_ "github.com/jackc/pgx/v5/stdlib" // for the service
)

// Reserve locks the seat, then the order.
func Reserve(ctx context.Context, tx *sql.Tx, id int64) error { // want Reserve:`^locks\(table:seats ROW EXCLUSIVE@p1, row:seats FOR NO KEY UPDATE@p1, table:orders ROW EXCLUSIVE@p1, row:orders FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.ExecContext(ctx, "UPDATE seats SET held = true WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE orders SET seat = $1 WHERE id = $1", id)
	return err
}

// Cancel locks the order, then the seat.
func Cancel(ctx context.Context, tx *sql.Tx, id int64) error { // want Cancel:`^locks\(table:orders ROW EXCLUSIVE@p1, row:orders FOR NO KEY UPDATE@p1, table:seats ROW EXCLUSIVE@p1, row:seats FOR NO KEY UPDATE@p1\) holds\[0 1 2 3\]$`
	if _, err := tx.ExecContext(ctx, "UPDATE orders SET seat = NULL WHERE id = $1", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE seats SET held = false WHERE id = $1", id) // want `lock-order inversion: rows of orders and rows of seats are locked in opposite orders`
	return err
}

// Import writes MySQL-dialect statements: backticks and an upsert
// PostgreSQL rejects. They are skipped as another dialect's.
func Import(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE `orders` SET seat = NULL WHERE id = ?", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO seats (id) VALUES (?) ON DUPLICATE KEY UPDATE held = false", id)
	return err
}
