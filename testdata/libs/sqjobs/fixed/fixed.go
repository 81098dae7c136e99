package fixed // want package:"sql=true edges=12"

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
)

// jobQuery selects one job: a builder begun in a helper.
func jobQuery(b sq.StatementBuilderType, id int64) sq.SelectBuilder {
	return b.Select("account_id").From("jobs").Where("id = ?", id)
}

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
	b := sq.StatementBuilder.PlaceholderFormat(sq.Dollar).RunWith(tx)
	var accountID int64
	if err := jobQuery(b, id).Suffix("FOR UPDATE").QueryRowContext(ctx).Scan(&accountID); err != nil {
		return err
	}
	if _, err := b.Update("accounts").Set("balance", sq.Expr("balance - 1")).Where(sq.Eq{"id": accountID}).ExecContext(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// Refund locks the account's jobs first too, then credits the account.
func (s *Store) Refund(ctx context.Context, accountID int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@L0.*row:accounts FOR NO KEY UPDATE@L0`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args, err := sq.Select("id").From("jobs").Where("account_id = ?", accountID).Suffix("FOR UPDATE").PlaceholderFormat(sq.Dollar).ToSql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	if _, err := sq.Update("accounts").Set("balance", sq.Expr("balance + 1")).Where("id = ?", accountID).RunWith(tx).Exec(); err != nil {
		return err
	}
	return tx.Commit()
}
