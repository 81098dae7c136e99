package links // want package:"sql=true edges=1"

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Prune locks old links in hash order.
func Prune(ctx context.Context, tx pgx.Tx, height int64) error { // want Prune:`locks\(table:chain_links ROW SHARE@p1, row:chain_links FOR UPDATE@p1\)`
	_, err := tx.Exec(ctx, "SELECT hash FROM chain_links WHERE height < $1 ORDER BY hash FOR UPDATE", height)
	return err
}
