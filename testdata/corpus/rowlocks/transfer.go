package rowlocks

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// transfer locks the payer, then the payee: transfer(a, b) and transfer(b,
// a) at the same time deadlock.
func transfer(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $2 WHERE id = $1", to, amount) // want `row order chosen by the caller: rowlocks.transfer locks two rows of accounts, first the one keyed by from, then the one keyed by to; two concurrent calls with the two swapped deadlock`
	return err
}

// transferOrdered locks the lower id first, whatever the direction.
func transferOrdered(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	first, second := from, to
	if second < first {
		first, second = second, first
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", first); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", second); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $2 WHERE id = $1", to, amount)
	return err
}

// transferMinMax does the same with min and max.
func transferMinMax(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", min(from, to)); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR UPDATE", max(from, to))
	return err
}

// transferOneStatement locks both rows in one ordered statement first.
func transferOneStatement(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id IN ($1, $2) ORDER BY id FOR UPDATE", from, to); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $2 WHERE id = $1", to, amount)
	return err
}

// TransferRequest is what an API handler receives.
type TransferRequest struct {
	FromID, ToID, Amount int64
}

// handleTransfer takes the keys from a request's fields.
func handleTransfer(ctx context.Context, tx pgx.Tx, req *TransferRequest) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", req.FromID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM wallets WHERE id = $1 FOR UPDATE", req.ToID) // want `row order chosen by the caller: rowlocks.handleTransfer locks two rows of wallets, first the one keyed by req.FromID, then the one keyed by req.ToID`
	return err
}

// debit and credit each lock one row.
func debit(ctx context.Context, tx pgx.Tx, id, amount int64) error {
	_, err := tx.Exec(ctx, "UPDATE ledgers SET balance = balance - $2 WHERE id = $1", id, amount)
	return err
}

func credit(ctx context.Context, tx pgx.Tx, id, amount int64) error {
	_, err := tx.Exec(ctx, "UPDATE ledgers SET balance = balance + $2 WHERE id = $1", id, amount)
	return err
}

// move locks the two rows through helpers.
func move(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if err := debit(ctx, tx, from, amount); err != nil {
		return err
	}
	return credit(ctx, tx, to, amount) // want `row order chosen by the caller: rowlocks.move locks two rows of ledgers, first the one keyed by from, then the one keyed by to`
}

// moveChecked compares the keys and locks the lower one first.
func moveChecked(ctx context.Context, tx pgx.Tx, from, to, amount int64) error {
	if from < to {
		if err := debit(ctx, tx, from, amount); err != nil {
			return err
		}
		return credit(ctx, tx, to, amount)
	}
	if err := credit(ctx, tx, to, amount); err != nil {
		return err
	}
	return debit(ctx, tx, from, amount)
}

// shareBoth reads two rows FOR SHARE: shared row locks do not conflict.
func shareBoth(ctx context.Context, tx pgx.Tx, a, b int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR SHARE", a); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM accounts WHERE id = $1 FOR SHARE", b)
	return err
}

// lockTwoTables locks rows of two different tables: table order, not row
// order (the cycle rules judge it).
func lockTwoTables(ctx context.Context, tx pgx.Tx, user, team int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM users WHERE id = $1 FOR UPDATE", user); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM teams WHERE id = $1 FOR UPDATE", team)
	return err
}

// lockParentOf locks a row and then one read from the database: not an
// order the caller picks.
func lockParentOf(ctx context.Context, tx pgx.Tx, id int64) error {
	var parent int64
	if err := tx.QueryRow(ctx, "SELECT parent_id FROM nodes WHERE id = $1 FOR UPDATE", id).Scan(&parent); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM nodes WHERE id = $1 FOR UPDATE", parent)
	return err
}

// lockAccountKey guards one account with an advisory lock.
func lockAccountKey(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", id)
	return err
}

// guardedTransfer takes the two accounts' advisory locks in the caller's
// order.
func guardedTransfer(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if err := lockAccountKey(ctx, tx, from); err != nil {
		return err
	}
	return lockAccountKey(ctx, tx, to) // want `row order chosen by the caller: rowlocks.guardedTransfer takes two advisory locks, first the one keyed by from, then the one keyed by to`
}

// guardedTransferOrdered takes them lower key first.
func guardedTransferOrdered(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if err := lockAccountKey(ctx, tx, min(from, to)); err != nil {
		return err
	}
	return lockAccountKey(ctx, tx, max(from, to))
}

// pick passes its arguments on unchanged: it orders nothing.
func pick(a, b int64) (int64, int64) { return a, b }

// ordered returns the two keys lower first.
func ordered(a, b int64) (int64, int64) {
	if b < a {
		return b, a
	}
	return a, b
}

func movePicked(ctx context.Context, tx pgx.Tx, from, to int64) error {
	f, t := pick(from, to)
	if _, err := tx.Exec(ctx, "UPDATE purses SET n = n - 1 WHERE id = $1", f); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE purses SET n = n + 1 WHERE id = $1", t) // want `row order chosen by the caller: rowlocks.movePicked locks two rows of purses, first the one keyed by from, then the one keyed by to`
	return err
}

func moveOrdered(ctx context.Context, tx pgx.Tx, from, to int64) error {
	lo, hi := ordered(from, to)
	if _, err := tx.Exec(ctx, "SELECT id FROM purses WHERE id = $1 FOR UPDATE", lo); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT id FROM purses WHERE id = $1 FOR UPDATE", hi)
	return err
}
