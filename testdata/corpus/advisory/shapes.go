package advisory

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Advisory keys known only at run time are classed by shape: what the
// program feeds them. PostgreSQL compares key values only, so two sites fed
// the same kind of value can take the same lock.

// Invoice is a row of ledger_invoices.
type Invoice struct {
	ID        int64
	AccountID int64
}

// GuardAccount takes the account's key, fed an accountID, then locks the
// account's invoices.
func GuardAccount(ctx context.Context, tx pgx.Tx, accountID int64) error { // want GuardAccount:`^locks\(advisory:\(\?p2\)\|@corpus/advisory/shapes.go:23:22 exclusive@p1, table:ledger_invoices ROW SHARE@p1, row:ledger_invoices FOR UPDATE@p1\) holds\[0 1 2\]$`
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", accountID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT 1 FROM ledger_invoices WHERE account_id = $1 ORDER BY id FOR UPDATE", accountID) // want `lock-order inversion: advisory lock \(<accountid>\) and rows of ledger_invoices are locked in opposite orders`
	return err
}

// ChargeInvoice locks an invoice, then its account's key, fed the invoice's
// AccountID: the same key space, the opposite order.
func ChargeInvoice(ctx context.Context, tx pgx.Tx, inv Invoice) error { // want ChargeInvoice:`advisory:\(<accountid>\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_invoices WHERE id = $1 FOR UPDATE", inv.ID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", inv.AccountID)
	return err
}

// CountInvoices locks an invoice, then a key fed a count: nothing says it
// is an account's, so it stays the class of its own site.
func CountInvoices(ctx context.Context, tx pgx.Tx, inv Invoice, n int64) error { // want CountInvoices:`advisory@corpus/advisory/shapes.go:46:19 exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_invoices WHERE id = $1 FOR UPDATE", inv.ID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", n*2)
	return err
}

// The jobs namespace (7) of two-part keys.
const jobsNamespace = 7

// RunJob takes the job's key in the jobs namespace, then the job's row.
func RunJob(ctx context.Context, tx pgx.Tx, job int64) error { // want RunJob:`^locks\(advisory:\(7, <\?>\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, $2)", jobsNamespace, int32(job*3)); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT 1 FROM ledger_jobs WHERE id = $1 FOR UPDATE", job) // want `lock-order inversion: advisory lock \(7, <\?>\) and rows of ledger_jobs are locked in opposite orders`
	return err
}

// CancelJob locks the job's row, then a key of the same namespace: the
// keys of one namespace are one class.
func CancelJob(ctx context.Context, tx pgx.Tx, job int64) error { // want CancelJob:`advisory:\(7, <\?>\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_jobs WHERE id = $1 FOR UPDATE", job); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7, $1)", int32(job*3))
	return err
}

// PauseJob locks the job's row, then a key of another namespace (8): no
// conflict with RunJob's.
func PauseJob(ctx context.Context, tx pgx.Tx, job int64) error { // want PauseJob:`advisory:\(8, <\?>\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_jobs WHERE id = $1 FOR UPDATE", job); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(8, $1)", int32(job*3))
	return err
}

// Export takes a hashtext key with the 'export:' prefix, then the export's
// row.
func Export(ctx context.Context, tx pgx.Tx, id int64) error { // want Export:`^locks\(advisory:\(hashtext\(\('export:' \|\| <\?>\)\)\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('export:' || $1))", strconv.FormatInt(id, 10)); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT 1 FROM ledger_exports WHERE id = $1 FOR UPDATE", id) // want `lock-order inversion: advisory lock \(hashtext\(\('export:' \|\| <\?>\)\)\) and rows of ledger_exports are locked in opposite orders`
	return err
}

// Reexport locks the row, then a key of the same prefix.
func Reexport(ctx context.Context, tx pgx.Tx, id int64) error { // want Reexport:`advisory:\(hashtext\(\('export:' \|\| <\?>\)\)\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_exports WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('export:' || $1))", strconv.FormatInt(id, 10))
	return err
}

// Archive locks the row, then a key of another prefix: no conflict.
func Archive(ctx context.Context, tx pgx.Tx, id int64) error { // want Archive:`advisory:\(hashtext\(\('archive:' \|\| <\?>\)\)\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_exports WHERE id = $1 FOR UPDATE", id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('archive:' || $1))", strconv.FormatInt(id, 10))
	return err
}

// lockKey computes the key of an object of a kind.
func lockKey(kind string, id int64) int64 {
	var h int64
	for _, c := range kind {
		h = h*31 + int64(c)
	}
	return h<<32 | id&0xffffffff
}

// Settle takes the key lockKey computes for an account, then the account's
// wallet row.
func Settle(ctx context.Context, tx pgx.Tx, wallet int64) error { // want Settle:`^locks\(advisory:\(<lockkey\('account'\)>\) exclusive@p1, `
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey("account", wallet)); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT 1 FROM ledger_wallets WHERE id = $1 FOR UPDATE", wallet) // want `lock-order inversion: advisory lock \(<lockkey\('account'\)>\) and rows of ledger_wallets are locked in opposite orders`
	return err
}

// TopUp locks the wallet row, then an account key from the same helper:
// every lockKey("account", ...) is one class.
func TopUp(ctx context.Context, tx pgx.Tx, wallet int64) error { // want TopUp:`advisory:\(<lockkey\('account'\)>\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_wallets WHERE id = $1 FOR UPDATE", wallet); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey("account", wallet))
	return err
}

// Audit locks the wallet row, then a job key from the same helper: another
// kind, another class.
func Audit(ctx context.Context, tx pgx.Tx, wallet int64) error { // want Audit:`advisory:\(<lockkey\('job'\)>\) exclusive@p1\)`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM ledger_wallets WHERE id = $1 FOR UPDATE", wallet); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey("job", wallet))
	return err
}
