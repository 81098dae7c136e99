package fixed // want package:"sql=true edges=[0-9]+"

// The twins of the splice scenario's pairs, fixed: both functions of a pair
// take the two tables in the same order.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/splice/sqltext"
)

// reserve passes the table on through a second helper of this package.
func reserve(ctx context.Context, tx pgx.Tx, table string, id int64) error {
	return lockVia(ctx, tx, table, id)
}

// lockVia is the second level: it runs sqltext.LockRow with its caller's
// table.
func lockVia(ctx context.Context, tx pgx.Tx, table string, id int64) error {
	return sqltext.LockRow(ctx, tx, table, id)
}

// SprintfForward locks purchase_orders, then consignments: fmt.Sprintf with %s.
func SprintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfForward:`locks\(table:purchase_orders ROW SHARE@L0, row:purchase_orders FOR UPDATE@L0, table:consignments ROW SHARE@L0, row:consignments FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "purchase_orders", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "consignments", id)
	})
}

// SprintfBackward locks purchase_orders, then consignments as well.
func SprintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfBackward:`locks\(table:purchase_orders ROW SHARE@L0, row:purchase_orders FOR UPDATE@L0, table:consignments ROW SHARE@L0, row:consignments FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "purchase_orders", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "consignments", id)
	})
}

// ConcatForward locks trolleys, then rebates: + concatenation.
func ConcatForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatForward:`locks\(table:trolleys ROW EXCLUSIVE@L0, row:trolleys FOR NO KEY UPDATE@L0, table:rebates ROW EXCLUSIVE@L0, row:rebates FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "trolleys", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "rebates", id)
	})
}

// ConcatBackward locks trolleys, then rebates as well.
func ConcatBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatBackward:`locks\(table:trolleys ROW EXCLUSIVE@L0, row:trolleys FOR NO KEY UPDATE@L0, table:rebates ROW EXCLUSIVE@L0, row:rebates FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "trolleys", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "rebates", id)
	})
}

// QuotedForward locks folios, then daybooks: fmt.Sprintf with an indexed %[1]q.
func QuotedForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedForward:`locks\(table:folios ROW SHARE@L0, row:folios FOR UPDATE@L0, table:daybooks ROW SHARE@L0, row:daybooks FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "folios", id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "daybooks", id)
	})
}

// QuotedBackward locks folios, then daybooks as well.
func QuotedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedBackward:`locks\(table:folios ROW SHARE@L0, row:folios FOR UPDATE@L0, table:daybooks ROW SHARE@L0, row:daybooks FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "folios", id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "daybooks", id)
	})
}

// ShardForward locks events_1, then events_2: fmt.Sprintf with %d.
func ShardForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardForward:`locks\(table:events_1 ROW SHARE@L0, row:events_1 FOR UPDATE@L0, table:events_2 ROW SHARE@L0, row:events_2 FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockShard(ctx, tx, 1, id); err != nil {
			return err
		}
		return sqltext.LockShard(ctx, tx, 2, id)
	})
}

// ShardBackward locks events_1, then events_2 as well.
func ShardBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardBackward:`locks\(table:events_1 ROW SHARE@L0, row:events_1 FOR UPDATE@L0, table:events_2 ROW SHARE@L0, row:events_2 FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockShard(ctx, tx, 1, id); err != nil {
			return err
		}
		return sqltext.LockShard(ctx, tx, 2, id)
	})
}

// PrintfForward locks bills, then chargebacks: a printf-like wrapper: the format and its arguments are the caller's.
func PrintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfForward:`locks\(table:bills ROW EXCLUSIVE@L0, row:bills FOR NO KEY UPDATE@L0, table:chargebacks ROW EXCLUSIVE@L0, row:chargebacks FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "bills"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "chargebacks")
	})
}

// PrintfBackward locks bills, then chargebacks as well.
func PrintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfBackward:`locks\(table:bills ROW EXCLUSIVE@L0, row:bills FOR NO KEY UPDATE@L0, table:chargebacks ROW EXCLUSIVE@L0, row:chargebacks FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "bills"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "chargebacks")
	})
}

// BuilderForward locks parcel_crates, then lanes: strings.Builder.
func BuilderForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderForward:`locks\(table:parcel_crates ROW SHARE@L0, row:parcel_crates FOR UPDATE@L0, table:lanes ROW SHARE@L0, row:lanes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "parcel_crates", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "lanes", id)
	})
}

// BuilderBackward locks parcel_crates, then lanes as well.
func BuilderBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderBackward:`locks\(table:parcel_crates ROW SHARE@L0, row:parcel_crates FOR UPDATE@L0, table:lanes ROW SHARE@L0, row:lanes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "parcel_crates", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "lanes", id)
	})
}

// BufferForward locks inventory_lots, then shelf_slots: bytes.Buffer.
func BufferForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferForward:`locks\(table:inventory_lots ROW EXCLUSIVE@L0, row:inventory_lots FOR NO KEY UPDATE@L0, table:shelf_slots ROW EXCLUSIVE@L0, row:shelf_slots FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "inventory_lots", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "shelf_slots", id)
	})
}

// BufferBackward locks inventory_lots, then shelf_slots as well.
func BufferBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferBackward:`locks\(table:inventory_lots ROW EXCLUSIVE@L0, row:inventory_lots FOR NO KEY UPDATE@L0, table:shelf_slots ROW EXCLUSIVE@L0, row:shelf_slots FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "inventory_lots", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "shelf_slots", id)
	})
}

// ReplaceForward locks orgs, then tiers: strings.ReplaceAll and strings.TrimSpace of a constant template.
func ReplaceForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceForward:`locks\(table:orgs ROW SHARE@L0, row:orgs FOR UPDATE@L0, table:tiers ROW SHARE@L0, row:tiers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "orgs", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "tiers", id)
	})
}

// ReplaceBackward locks orgs, then tiers as well.
func ReplaceBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceBackward:`locks\(table:orgs ROW SHARE@L0, row:orgs FOR UPDATE@L0, table:tiers ROW SHARE@L0, row:tiers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "orgs", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "tiers", id)
	})
}

// JoinForward locks widgets, then custodians: strings.Join of a constant list.
func JoinForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinForward:`locks\(table:widgets ROW SHARE@L0, row:widgets FOR UPDATE@L0, table:custodians ROW SHARE@L0, row:custodians FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "widgets", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "custodians", id)
	})
}

// JoinBackward locks widgets, then custodians as well.
func JoinBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinBackward:`locks\(table:widgets ROW SHARE@L0, row:widgets FOR UPDATE@L0, table:custodians ROW SHARE@L0, row:custodians FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "widgets", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "custodians", id)
	})
}

// FileForward locks entry_tickets, then berths: fs.ReadFile of an embed.FS with a file name built from the caller's.
func FileForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileForward:`locks\(table:entry_tickets ROW SHARE@L0, row:entry_tickets FOR UPDATE@L0, table:berths ROW SHARE@L0, row:berths FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_ticket", id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_seat", id)
	})
}

// FileBackward locks entry_tickets, then berths as well.
func FileBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileBackward:`locks\(table:entry_tickets ROW SHARE@L0, row:entry_tickets FOR UPDATE@L0, table:berths ROW SHARE@L0, row:berths FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_ticket", id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_seat", id)
	})
}

// NamedForward locks credit_notes, then coin_purses: (embed.FS).ReadFile in a helper of the helper.
func NamedForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedForward:`locks\(table:credit_notes ROW SHARE@L0, row:credit_notes FOR UPDATE@L0, table:coin_purses ROW SHARE@L0, row:coin_purses FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "voucher", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "wallet", id)
	})
}

// NamedBackward locks credit_notes, then coin_purses as well.
func NamedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedBackward:`locks\(table:credit_notes ROW SHARE@L0, row:credit_notes FOR UPDATE@L0, table:coin_purses ROW SHARE@L0, row:coin_purses FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "voucher", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "wallet", id)
	})
}

// TwoLevelsForward locks cabins, then lodgers: a helper of this package passing the table on to sqltext.LockRow.
func TwoLevelsForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsForward:`locks\(table:cabins ROW SHARE@L0, row:cabins FOR UPDATE@L0, table:lodgers ROW SHARE@L0, row:lodgers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "cabins", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "lodgers", id)
	})
}

// TwoLevelsBackward locks cabins, then lodgers as well.
func TwoLevelsBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsBackward:`locks\(table:cabins ROW SHARE@L0, row:cabins FOR UPDATE@L0, table:lodgers ROW SHARE@L0, row:lodgers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "cabins", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "lodgers", id)
	})
}
