package heldrows // want package:"sql=true edges=39"

// A helper that updates two rows of one table in the order its caller
// passes the keys waits for nothing when every caller has already locked
// both rows, on the same transaction, in key order (min, then max) and in a
// mode that covers the helper's: the order that counts is the caller's. The
// helper stays reported when a caller locked only one of the rows, other
// rows, both in a weaker mode or on another transaction, or when another
// caller locked neither.

import (
	"context"
	"database/sql"
)

// txKey carries the request's transaction in its context.
type txKey struct{}

// querier is what the store's statements run on: the request's
// transaction, or the pool.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Patients is the patient registry.
type Patients struct{ DB *sql.DB }

// q returns the context's transaction, or the pool outside one.
func (p *Patients) q(ctx context.Context) querier { // want q:`^returns\(0=p1\.ctx\$tx\(handle\)\)$`
	if tx, ok := ctx.Value(txKey{}).(*sql.Tx); ok {
		return tx
	}
	return p.DB
}

// lock locks one patient for the rest of the context's transaction.
func (p *Patients) lock(ctx context.Context, id int64) error { // want lock:`^locks\(table:patients ROW SHARE@p1\.ctx\$tx, row:patients FOR UPDATE@p1\.ctx\$tx\) holds\[0 1\]$`
	_, err := p.q(ctx).ExecContext(ctx, "SELECT 1 FROM patients WHERE id = $1 FOR UPDATE", id)
	return err
}

// share locks one patient against changes, not against other readers.
func (p *Patients) share(ctx context.Context, id int64) error { // want share:`^locks\(table:patients ROW SHARE@p1\.ctx\$tx, row:patients FOR SHARE@p1\.ctx\$tx\) holds\[0 1\]$`
	_, err := p.q(ctx).ExecContext(ctx, "SELECT 1 FROM patients WHERE id = $1 FOR SHARE", id)
	return err
}

// merge moves the visits of from to into. Its only caller holds both rows.
func (p *Patients) merge(ctx context.Context, from, into int64) error { // want merge:`^locks\(table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx, table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx\) holds\[0 1 2 3\]$`
	if _, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET visits = visits + 1 WHERE id = $1", into); err != nil {
		return err
	}
	_, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET merged_into = $2 WHERE id = $1", from, into)
	return err
}

// Merge merges dup into keep: both rows locked in key order first.
func (p *Patients) Merge(ctx context.Context, dup, keep int64) error { // want Merge:`^locks\(table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0\)$`
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ctx = context.WithValue(ctx, txKey{}, tx)
	if err := p.lock(ctx, min(dup, keep)); err != nil {
		return err
	}
	if err := p.lock(ctx, max(dup, keep)); err != nil {
		return err
	}
	if err := p.merge(ctx, dup, keep); err != nil {
		return err
	}
	return tx.Commit()
}

// link records that a was referred by b. One caller locks only one row.
func (p *Patients) link(ctx context.Context, a, b int64) error { // want link:`^locks\(table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx, table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx\) holds\[0 1 2 3\]$`
	if _, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET referrals = referrals + 1 WHERE id = $1", a); err != nil {
		return err
	}
	_, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET referred_by = $2 WHERE id = $1", b, a) // want `row order chosen by the caller: heldrows.Patients.link locks two rows of patients, first the one keyed by a, then the one keyed by b`
	return err
}

// Refer locks the lower of the two patients only: the other row is free
// when link asks for it.
func (p *Patients) Refer(ctx context.Context, referrer, patient int64) error { // want Refer:`^locks\(table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0\)$`
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ctx = context.WithValue(ctx, txKey{}, tx)
	if err := p.lock(ctx, min(referrer, patient)); err != nil {
		return err
	}
	if err := p.link(ctx, referrer, patient); err != nil {
		return err
	}
	return tx.Commit()
}

// swapRooms exchanges the rooms of two patients. Its caller locks the rows
// of other patients than those it passes.
func (p *Patients) swapRooms(ctx context.Context, a, b int64) error { // want swapRooms:`^locks\(table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx, table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx\) holds\[0 1 2 3\]$`
	if _, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET room = NULL WHERE id = $1", a); err != nil {
		return err
	}
	_, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET room = $2 WHERE id = $1", b, a) // want `row order chosen by the caller: heldrows.Patients.swapRooms locks two rows of patients, first the one keyed by a, then the one keyed by b`
	return err
}

// Transfer locks the two nurses' patients, then swaps the rooms of two
// others.
func (p *Patients) Transfer(ctx context.Context, nurseA, nurseB, a, b int64) error { // want Transfer:`^locks\(table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0\)$`
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ctx = context.WithValue(ctx, txKey{}, tx)
	if err := p.lock(ctx, min(nurseA, nurseB)); err != nil {
		return err
	}
	if err := p.lock(ctx, max(nurseA, nurseB)); err != nil {
		return err
	}
	if err := p.swapRooms(ctx, a, b); err != nil {
		return err
	}
	return tx.Commit()
}

// cosign marks two patients' consent forms. Its caller locks both rows FOR
// SHARE, which does not hold off another caller's FOR SHARE: the UPDATEs
// still wait.
func (p *Patients) cosign(ctx context.Context, a, b int64) error { // want cosign:`^locks\(table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx, table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx\) holds\[0 1 2 3\]$`
	if _, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET consent = true WHERE id = $1", a); err != nil {
		return err
	}
	_, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET consent = true WHERE id = $1", b) // want `row order chosen by the caller: heldrows.Patients.cosign locks two rows of patients, first the one keyed by a, then the one keyed by b`
	return err
}

// Consent shares both rows in key order, then updates them.
func (p *Patients) Consent(ctx context.Context, a, b int64) error { // want Consent:`^locks\(table:patients ROW SHARE@L0, row:patients FOR SHARE@L0, table:patients ROW SHARE@L0, row:patients FOR SHARE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0\)$`
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ctx = context.WithValue(ctx, txKey{}, tx)
	if err := p.share(ctx, min(a, b)); err != nil {
		return err
	}
	if err := p.share(ctx, max(a, b)); err != nil {
		return err
	}
	if err := p.cosign(ctx, a, b); err != nil { // want `lock-upgrade deadlock: heldrows.Patients.Consent holds rows of patients \(FOR SHARE\) and then requests rows of patients \(FOR NO KEY UPDATE\)`
		return err
	}
	return tx.Commit()
}

// moveBed moves the bed of a to b. Its first caller holds both rows; its
// second locks neither, so two of its runs with a and b swapped deadlock.
func (p *Patients) moveBed(ctx context.Context, a, b int64) error { // want moveBed:`^locks\(table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx, table:patients ROW EXCLUSIVE@p1\.ctx\$tx, row:patients FOR NO KEY UPDATE@p1\.ctx\$tx\) holds\[0 1 2 3\]$`
	if _, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET bed = NULL WHERE id = $1", a); err != nil {
		return err
	}
	_, err := p.q(ctx).ExecContext(ctx, "UPDATE patients SET bed = $2 WHERE id = $1", b, a) // want `row order chosen by the caller: heldrows.Patients.moveBed locks two rows of patients, first the one keyed by a, then the one keyed by b`
	return err
}

// Rebed locks both patients in key order, then moves the bed.
func (p *Patients) Rebed(ctx context.Context, from, to int64) error { // want Rebed:`^locks\(table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW SHARE@L0, row:patients FOR UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0\)$`
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ctx = context.WithValue(ctx, txKey{}, tx)
	if err := p.lock(ctx, min(from, to)); err != nil {
		return err
	}
	if err := p.lock(ctx, max(from, to)); err != nil {
		return err
	}
	if err := p.moveBed(ctx, from, to); err != nil {
		return err
	}
	return tx.Commit()
}

// QuickRebed moves the bed without locking the patients first.
func (p *Patients) QuickRebed(ctx context.Context, from, to int64) error { // want QuickRebed:`^locks\(table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0, table:patients ROW EXCLUSIVE@L0, row:patients FOR NO KEY UPDATE@L0\)$`
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := p.moveBed(context.WithValue(ctx, txKey{}, tx), from, to); err != nil {
		return err
	}
	return tx.Commit()
}
