package fixed // want package:"sql=true edges=[0-9]+"

// The fixed twin of package labels: the connection that begins its own
// transaction with BEGIN takes the job before the account, as Claim does,
// so the same helpers bound to a transaction and to a connection in a
// transaction agree on one order.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DBTX is what sqlc generates.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func lockJob(ctx context.Context, db DBTX, id int64) error {
	_, err := db.Exec(ctx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", id)
	return err
}

func lockAccount(ctx context.Context, db DBTX, id int64) error {
	_, err := db.Exec(ctx, "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", id)
	return err
}

// Claim locks the job, then the account, in a transaction.
func Claim(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want Claim:`locks\(.*row:jobs FOR UPDATE@L0, .*row:accounts FOR UPDATE@L0\)`
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := lockJob(ctx, tx, id); err != nil {
		return err
	}
	if err := lockAccount(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Refund takes the job first too.
func Refund(ctx context.Context, conn *pgx.Conn, id int64) error { // want Refund:`locks\(.*row:jobs FOR UPDATE@p1, .*row:accounts FOR UPDATE@p1\) holds`
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		return err
	}
	if err := lockJob(ctx, conn, id); err != nil {
		return err
	}
	if err := lockAccount(ctx, conn, id); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, "COMMIT")
	return err
}
