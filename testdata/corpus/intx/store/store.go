package store // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"database/sql"
	"fmt"

	"corpus/intx/gen"
)

type Store struct {
	db *sql.DB
	q  *gen.Queries
}

func New(db *sql.DB) *Store { // want New:`^returns\(0.db=p0\(pool\)\)$`
	return &Store{db: db, q: gen.New(db)}
}

// InTx runs fn in a transaction.
func (s *Store) InTx(ctx context.Context, fn func(q *gen.Queries, tx *sql.Tx) error) error { // want InTx:`^invokes\(p2\(0.db=L0\(transaction\), 1=L0\(transaction\)\)\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(s.q.WithTx(tx), tx); err != nil {
		return err
	}
	return tx.Commit()
}

// PayOrder locks orders, then payments (through the sqlc Queries bound to
// the same transaction), then shipments. The callback receives the
// transaction twice, as *sql.Tx and inside Queries: one connection, so this
// is an ordinary inversion, not a wait across connections.
func (s *Store) PayOrder(ctx context.Context, id int64) error { // want PayOrder:`row:orders FOR UPDATE@C0/L0, .*row:payments FOR NO KEY UPDATE@C0/L0`
	return s.InTx(ctx, func(q *gen.Queries, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, lockOrder, id); err != nil {
			return err
		}
		if err := q.MarkPaid(ctx, id); err != nil { // want `lock-order inversion: rows of orders and rows of payments are locked in opposite orders; concurrent transactions`
			return err
		}
		_, err := q.LockShipment(ctx, id)
		return err
	})
}

// Refund locks payments first, then orders.
func (s *Store) Refund(ctx context.Context, id int64) error { // want Refund:`row:payments FOR UPDATE@L0, .*row:orders FOR UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, lockPayment, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, lockOrder, id); err != nil {
		return err
	}
	return tx.Commit()
}

const (
	lockOrder   = `SELECT id FROM orders WHERE id = $1 FOR UPDATE`
	lockPayment = `SELECT id FROM payments WHERE order_id = $1 FOR UPDATE`
)
