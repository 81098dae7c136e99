package parentloop // want package:"sql=true edges=42"

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// ChargeAll locks each ledger in turn, then that ledger's accounts. The
// next turn waits for the next ledger while it holds the accounts of the
// last; but CloseLedger, which holds a ledger while it waits for accounts,
// waits only for that ledger's accounts, which ChargeAll can hold only
// after locking that very ledger, in a mode CloseLedger's excludes.
func ChargeAll(ctx context.Context, tx pgx.Tx, ledgerIDs []int64, fee int64) error { // want ChargeAll:`^locks\(table:pl_ledgers ROW SHARE@p1, row:pl_ledgers FOR SHARE@p1, `
	slices.Sort(ledgerIDs)
	for _, lid := range ledgerIDs {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pl_ledgers WHERE id = $1 FOR SHARE", lid); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE pl_accounts SET balance = balance - $2 WHERE ledger_id = $1", lid, fee); err != nil {
			return err
		}
	}
	return nil
}

// CloseLedger locks one ledger, then its accounts.
func CloseLedger(ctx context.Context, conn *pgx.Conn, lid int64) error { // want CloseLedger:`^locks\(table:pl_ledgers ROW SHARE@L0, row:pl_ledgers FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pl_ledgers WHERE id = $1 FOR UPDATE", lid); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM pl_accounts WHERE ledger_id = $1 ORDER BY id FOR UPDATE", lid)
		return err
	})
}

// SweepTenant locks each ledger in turn too, but then every account of the
// tenant: the accounts it holds are not within the ledger it locked, and
// CloseLedger's may be among them.
func SweepTenant(ctx context.Context, tx pgx.Tx, ledgerIDs []int64, tenant int64) error { // want SweepTenant:`^locks\(table:pl_books ROW SHARE@p1, row:pl_books FOR SHARE@p1, `
	slices.Sort(ledgerIDs)
	for _, lid := range ledgerIDs {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pl_books WHERE id = $1 FOR SHARE", lid); err != nil { // want `lock-order inversion: rows of pl_books and rows of pl_entries are locked in opposite orders`
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE pl_entries SET n = n + 1 WHERE tenant_id = $1", tenant); err != nil {
			return err
		}
	}
	return nil
}

// CloseBook locks one book, then its entries.
func CloseBook(ctx context.Context, conn *pgx.Conn, book int64) error { // want CloseBook:`^locks\(table:pl_books ROW SHARE@L0, row:pl_books FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pl_books WHERE id = $1 FOR UPDATE", book); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM pl_entries WHERE book_id = $1 ORDER BY id FOR UPDATE", book)
		return err
	})
}

// AuditAll is ChargeAll over vaults and their boxes.
func AuditAll(ctx context.Context, tx pgx.Tx, vaultIDs []int64) error { // want AuditAll:`^locks\(table:pl_vaults ROW SHARE@p1, row:pl_vaults FOR SHARE@p1, `
	slices.Sort(vaultIDs)
	for _, vid := range vaultIDs {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pl_vaults WHERE id = $1 FOR SHARE", vid); err != nil { // want `lock-order inversion: rows of pl_boxes and rows of pl_vaults are locked in opposite orders`
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE pl_boxes SET audited = true WHERE vault_id = $1", vid); err != nil {
			return err
		}
	}
	return nil
}

// CloseVault locks a vault, then the boxes of an owner, which need not be
// that vault's: AuditAll may hold them under another vault.
func CloseVault(ctx context.Context, conn *pgx.Conn, vid, owner int64) error { // want CloseVault:`^locks\(table:pl_vaults ROW SHARE@L0, row:pl_vaults FOR UPDATE@L0, `
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pl_vaults WHERE id = $1 FOR UPDATE", vid); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT 1 FROM pl_boxes WHERE owner_id = $1 ORDER BY id FOR UPDATE", owner)
		return err
	})
}
