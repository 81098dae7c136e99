package suppress // want package:"sql=true edges=13"

import (
	"context"
	"database/sql"
)

// invoice locks the subscription, then the usage records; changeTier
// locks them the other way round. The inversion is reported at invoice's
// second request, where a directive on the line above suppresses it.
func invoice(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM subscriptions WHERE id = 1 FOR UPDATE"); err != nil {
		return err
	}
	//pglockorder:ignore invoices run from one worker only, never next to tier changes
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = true WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit()
}

func changeTier(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE usage_records SET billed = false WHERE id = 1"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE subscriptions SET plan = 'x' WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit()
}

// noReason has a directive without a reason: it is reported, and
// suppresses nothing.
func noReason(ctx context.Context, db *sql.DB) error {
	/* want "pglockorder:ignore needs a reason" */ //pglockorder:ignore
	_, err := db.ExecContext(ctx, "UPDATE subscriptions SET plan = 'y' WHERE id = 2")
	return err
}

// stale has a directive with nothing to suppress.
func stale(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "SELECT 1") /* want `pglockorder:ignore \(left over from an old fix\) suppresses nothing` */ //pglockorder:ignore left over from an old fix
	return err
}

// notADirective is a comment that only starts like one.
func notADirective(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "SELECT 2") //pglockorder:ignored is another word
	return err
}
