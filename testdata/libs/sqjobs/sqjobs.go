package sqjobs // want package:"sql=true edges=12"

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

// psql renders $n placeholders, as PostgreSQL wants them.
var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// Store keeps jobs and accounts with squirrel.
type Store struct {
	db *sql.DB
}

// Claim locks the job, then charges its account.
func (s *Store) Claim(ctx context.Context, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var accountID int64
	// A builder extended in a branch: both branches lock the job row.
	q := psql.Select("account_id").From("jobs")
	if id > 0 {
		q = q.Where(sq.Eq{"id": id})
	}
	err = q.Suffix("FOR UPDATE").RunWith(tx).QueryRowContext(ctx).Scan(&accountID)
	if err != nil {
		return err
	}
	_, err = psql.Update("accounts").Set("balance", sq.Expr("balance - 1")).Where("id = ?", accountID).RunWith(tx).ExecContext(ctx)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// Refund credits the account, then locks its jobs: the opposite order. The
// statements are rendered with ToSql and run with database/sql.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:accounts FOR NO KEY UPDATE@L0.*row:jobs FOR UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args, err := sq.Update("accounts").Set("balance", sq.Expr("balance + 1")).Where(sq.Eq{"id": accountID}).ToSql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	q, args, err = sq.Select("id").From("jobs").Where("account_id = ?", accountID).Suffix("FOR UPDATE").ToSql()
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, q, args...) // want `lock-order inversion: rows of accounts and rows of jobs are locked in opposite orders`
	if err != nil {
		return err
	}
	defer rows.Close()
	return tx.Commit()
}
