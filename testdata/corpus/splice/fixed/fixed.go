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

// SprintfForward locks orders, then shipments: fmt.Sprintf with %s.
func SprintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfForward:`locks\(table:orders ROW SHARE@L0, row:orders FOR UPDATE@L0, table:shipments ROW SHARE@L0, row:shipments FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "orders", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "shipments", id)
	})
}

// SprintfBackward locks orders, then shipments as well.
func SprintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfBackward:`locks\(table:orders ROW SHARE@L0, row:orders FOR UPDATE@L0, table:shipments ROW SHARE@L0, row:shipments FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "orders", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "shipments", id)
	})
}

// ConcatForward locks carts, then coupons: + concatenation.
func ConcatForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatForward:`locks\(table:carts ROW EXCLUSIVE@L0, row:carts FOR NO KEY UPDATE@L0, table:coupons ROW EXCLUSIVE@L0, row:coupons FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "carts", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "coupons", id)
	})
}

// ConcatBackward locks carts, then coupons as well.
func ConcatBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatBackward:`locks\(table:carts ROW EXCLUSIVE@L0, row:carts FOR NO KEY UPDATE@L0, table:coupons ROW EXCLUSIVE@L0, row:coupons FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "carts", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "coupons", id)
	})
}

// QuotedForward locks ledgers, then journals: fmt.Sprintf with an indexed %[1]q.
func QuotedForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedForward:`locks\(table:ledgers ROW SHARE@L0, row:ledgers FOR UPDATE@L0, table:journals ROW SHARE@L0, row:journals FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "ledgers", id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "journals", id)
	})
}

// QuotedBackward locks ledgers, then journals as well.
func QuotedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedBackward:`locks\(table:ledgers ROW SHARE@L0, row:ledgers FOR UPDATE@L0, table:journals ROW SHARE@L0, row:journals FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "ledgers", id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "journals", id)
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

// PrintfForward locks invoices, then refunds: a printf-like wrapper: the format and its arguments are the caller's.
func PrintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfForward:`locks\(table:invoices ROW EXCLUSIVE@L0, row:invoices FOR NO KEY UPDATE@L0, table:refunds ROW EXCLUSIVE@L0, row:refunds FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "invoices"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "refunds")
	})
}

// PrintfBackward locks invoices, then refunds as well.
func PrintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfBackward:`locks\(table:invoices ROW EXCLUSIVE@L0, row:invoices FOR NO KEY UPDATE@L0, table:refunds ROW EXCLUSIVE@L0, row:refunds FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "invoices"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "refunds")
	})
}

// BuilderForward locks parcels, then routes: strings.Builder.
func BuilderForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderForward:`locks\(table:parcels ROW SHARE@L0, row:parcels FOR UPDATE@L0, table:routes ROW SHARE@L0, row:routes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "parcels", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "routes", id)
	})
}

// BuilderBackward locks parcels, then routes as well.
func BuilderBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderBackward:`locks\(table:parcels ROW SHARE@L0, row:parcels FOR UPDATE@L0, table:routes ROW SHARE@L0, row:routes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "parcels", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "routes", id)
	})
}

// BufferForward locks stock, then bins: bytes.Buffer.
func BufferForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferForward:`locks\(table:stock ROW EXCLUSIVE@L0, row:stock FOR NO KEY UPDATE@L0, table:bins ROW EXCLUSIVE@L0, row:bins FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "stock", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "bins", id)
	})
}

// BufferBackward locks stock, then bins as well.
func BufferBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferBackward:`locks\(table:stock ROW EXCLUSIVE@L0, row:stock FOR NO KEY UPDATE@L0, table:bins ROW EXCLUSIVE@L0, row:bins FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "stock", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "bins", id)
	})
}

// ReplaceForward locks tenants, then plans: strings.ReplaceAll and strings.TrimSpace of a constant template.
func ReplaceForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceForward:`locks\(table:tenants ROW SHARE@L0, row:tenants FOR UPDATE@L0, table:plans ROW SHARE@L0, row:plans FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "tenants", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "plans", id)
	})
}

// ReplaceBackward locks tenants, then plans as well.
func ReplaceBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceBackward:`locks\(table:tenants ROW SHARE@L0, row:tenants FOR UPDATE@L0, table:plans ROW SHARE@L0, row:plans FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "tenants", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "plans", id)
	})
}

// JoinForward locks devices, then owners: strings.Join of a constant list.
func JoinForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinForward:`locks\(table:devices ROW SHARE@L0, row:devices FOR UPDATE@L0, table:owners ROW SHARE@L0, row:owners FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "devices", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "owners", id)
	})
}

// JoinBackward locks devices, then owners as well.
func JoinBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinBackward:`locks\(table:devices ROW SHARE@L0, row:devices FOR UPDATE@L0, table:owners ROW SHARE@L0, row:owners FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "devices", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "owners", id)
	})
}

// FileForward locks tickets, then seats: fs.ReadFile of an embed.FS with a file name built from the caller's.
func FileForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileForward:`locks\(table:tickets ROW SHARE@L0, row:tickets FOR UPDATE@L0, table:seats ROW SHARE@L0, row:seats FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_ticket", id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_seat", id)
	})
}

// FileBackward locks tickets, then seats as well.
func FileBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileBackward:`locks\(table:tickets ROW SHARE@L0, row:tickets FOR UPDATE@L0, table:seats ROW SHARE@L0, row:seats FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_ticket", id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_seat", id)
	})
}

// NamedForward locks vouchers, then wallets: (embed.FS).ReadFile in a helper of the helper.
func NamedForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedForward:`locks\(table:vouchers ROW SHARE@L0, row:vouchers FOR UPDATE@L0, table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "voucher", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "wallet", id)
	})
}

// NamedBackward locks vouchers, then wallets as well.
func NamedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedBackward:`locks\(table:vouchers ROW SHARE@L0, row:vouchers FOR UPDATE@L0, table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "voucher", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "wallet", id)
	})
}

// TwoLevelsForward locks rooms, then guests: a helper of this package passing the table on to sqltext.LockRow.
func TwoLevelsForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsForward:`locks\(table:rooms ROW SHARE@L0, row:rooms FOR UPDATE@L0, table:guests ROW SHARE@L0, row:guests FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "rooms", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "guests", id)
	})
}

// TwoLevelsBackward locks rooms, then guests as well.
func TwoLevelsBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsBackward:`locks\(table:rooms ROW SHARE@L0, row:rooms FOR UPDATE@L0, table:guests ROW SHARE@L0, row:guests FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "rooms", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "guests", id)
	})
}
