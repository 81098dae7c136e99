package splice // want package:"sql=true edges=[0-9]+"

// Each shape below splices a table name (or a file name) into SQL through a
// helper that takes it as a parameter; every call site binds it to its own
// constant. The pairs of functions named after a shape take two tables in
// opposite orders, a lock-order inversion visible only when the spliced
// text is resolved. The Near pairs pass two different tables to the same
// helper around one direct lock of audit: with one lock class per constant
// there is no cycle, where a union of the helper's callers would see one.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/splice/sqltext"
)

// lockAudit locks the audit row directly.
func lockAudit(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM audit WHERE id = $1 FOR UPDATE", id)
	return err
}

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
		return sqltext.LockRow(ctx, tx, "shipments", id) // want `lock\-order inversion: rows of orders and rows of shipments are locked in opposite orders`
	})
}

// SprintfBackward locks shipments, then orders: the opposite order.
func SprintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfBackward:`locks\(table:shipments ROW SHARE@L0, row:shipments FOR UPDATE@L0, table:orders ROW SHARE@L0, row:orders FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "shipments", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "orders", id)
	})
}

// SprintfNearFirst locks audit, then quotes through the helper.
func SprintfNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:quotes ROW SHARE@L0, row:quotes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "quotes", id)
	})
}

// SprintfNearSecond locks drafts through the same helper, then audit: another table, no cycle.
func SprintfNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfNearSecond:`locks\(table:drafts ROW SHARE@L0, row:drafts FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "drafts", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// ConcatForward locks carts, then coupons: + concatenation.
func ConcatForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatForward:`locks\(table:carts ROW EXCLUSIVE@L0, row:carts FOR NO KEY UPDATE@L0, table:coupons ROW EXCLUSIVE@L0, row:coupons FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "carts", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "coupons", id) // want `lock\-order inversion: rows of carts and rows of coupons are locked in opposite orders`
	})
}

// ConcatBackward locks coupons, then carts: the opposite order.
func ConcatBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatBackward:`locks\(table:coupons ROW EXCLUSIVE@L0, row:coupons FOR NO KEY UPDATE@L0, table:carts ROW EXCLUSIVE@L0, row:carts FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "coupons", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "carts", id)
	})
}

// ConcatNearFirst locks audit, then baskets through the helper.
func ConcatNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:baskets ROW EXCLUSIVE@L0, row:baskets FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "baskets", id)
	})
}

// ConcatNearSecond locks promos through the same helper, then audit: another table, no cycle.
func ConcatNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatNearSecond:`locks\(table:promos ROW EXCLUSIVE@L0, row:promos FOR NO KEY UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "promos", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// QuotedBackward locks journals, then ledgers: the opposite order.
func QuotedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedBackward:`locks\(table:journals ROW SHARE@L0, row:journals FOR UPDATE@L0, table:ledgers ROW SHARE@L0, row:ledgers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "journals", id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "ledgers", id) // want `lock\-order inversion: rows of journals and rows of ledgers are locked in opposite orders`
	})
}

// QuotedNearFirst locks audit, then budgets through the helper.
func QuotedNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:budgets ROW SHARE@L0, row:budgets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "budgets", id)
	})
}

// QuotedNearSecond locks forecasts through the same helper, then audit: another table, no cycle.
func QuotedNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedNearSecond:`locks\(table:forecasts ROW SHARE@L0, row:forecasts FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "forecasts", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// ShardForward locks events_1, then events_2: fmt.Sprintf with %d.
func ShardForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardForward:`locks\(table:events_1 ROW SHARE@L0, row:events_1 FOR UPDATE@L0, table:events_2 ROW SHARE@L0, row:events_2 FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockShard(ctx, tx, 1, id); err != nil {
			return err
		}
		return sqltext.LockShard(ctx, tx, 2, id) // want `lock\-order inversion: rows of events_1 and rows of events_2 are locked in opposite orders`
	})
}

// ShardBackward locks events_2, then events_1: the opposite order.
func ShardBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardBackward:`locks\(table:events_2 ROW SHARE@L0, row:events_2 FOR UPDATE@L0, table:events_1 ROW SHARE@L0, row:events_1 FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockShard(ctx, tx, 2, id); err != nil {
			return err
		}
		return sqltext.LockShard(ctx, tx, 1, id)
	})
}

// ShardNearFirst locks audit, then events_3 through the helper.
func ShardNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:events_3 ROW SHARE@L0, row:events_3 FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockShard(ctx, tx, 3, id)
	})
}

// ShardNearSecond locks events_4 through the same helper, then audit: another table, no cycle.
func ShardNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardNearSecond:`locks\(table:events_4 ROW SHARE@L0, row:events_4 FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockShard(ctx, tx, 4, id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// PrintfForward locks invoices, then refunds: a printf-like wrapper: the format and its arguments are the caller's.
func PrintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfForward:`locks\(table:invoices ROW EXCLUSIVE@L0, row:invoices FOR NO KEY UPDATE@L0, table:refunds ROW EXCLUSIVE@L0, row:refunds FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "invoices"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "refunds") // want `lock\-order inversion: rows of invoices and rows of refunds are locked in opposite orders`
	})
}

// PrintfBackward locks refunds, then invoices: the opposite order.
func PrintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfBackward:`locks\(table:refunds ROW EXCLUSIVE@L0, row:refunds FOR NO KEY UPDATE@L0, table:invoices ROW EXCLUSIVE@L0, row:invoices FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "refunds"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "invoices")
	})
}

// PrintfNearFirst locks audit, then receipts through the helper.
func PrintfNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:receipts ROW EXCLUSIVE@L0, row:receipts FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "receipts")
	})
}

// PrintfNearSecond locks disputes through the same helper, then audit: another table, no cycle.
func PrintfNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfNearSecond:`locks\(table:disputes ROW EXCLUSIVE@L0, row:disputes FOR NO KEY UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "disputes"); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// BuilderForward locks parcels, then routes: strings.Builder.
func BuilderForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderForward:`locks\(table:parcels ROW SHARE@L0, row:parcels FOR UPDATE@L0, table:routes ROW SHARE@L0, row:routes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "parcels", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "routes", id) // want `lock\-order inversion: rows of parcels and rows of routes are locked in opposite orders`
	})
}

// BuilderBackward locks routes, then parcels: the opposite order.
func BuilderBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderBackward:`locks\(table:routes ROW SHARE@L0, row:routes FOR UPDATE@L0, table:parcels ROW SHARE@L0, row:parcels FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "routes", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "parcels", id)
	})
}

// BuilderNearFirst locks audit, then pallets through the helper.
func BuilderNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:pallets ROW SHARE@L0, row:pallets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "pallets", id)
	})
}

// BuilderNearSecond locks docks through the same helper, then audit: another table, no cycle.
func BuilderNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderNearSecond:`locks\(table:docks ROW SHARE@L0, row:docks FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "docks", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// BufferBackward locks bins, then stock: the opposite order.
func BufferBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferBackward:`locks\(table:bins ROW EXCLUSIVE@L0, row:bins FOR NO KEY UPDATE@L0, table:stock ROW EXCLUSIVE@L0, row:stock FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "bins", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "stock", id) // want `lock\-order inversion: rows of bins and rows of stock are locked in opposite orders`
	})
}

// BufferNearFirst locks audit, then racks through the helper.
func BufferNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:racks ROW EXCLUSIVE@L0, row:racks FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "racks", id)
	})
}

// BufferNearSecond locks aisles through the same helper, then audit: another table, no cycle.
func BufferNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferNearSecond:`locks\(table:aisles ROW EXCLUSIVE@L0, row:aisles FOR NO KEY UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "aisles", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// ReplaceBackward locks plans, then tenants: the opposite order.
func ReplaceBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceBackward:`locks\(table:plans ROW SHARE@L0, row:plans FOR UPDATE@L0, table:tenants ROW SHARE@L0, row:tenants FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "plans", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "tenants", id) // want `lock\-order inversion: rows of plans and rows of tenants are locked in opposite orders`
	})
}

// ReplaceNearFirst locks audit, then regions through the helper.
func ReplaceNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:regions ROW SHARE@L0, row:regions FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "regions", id)
	})
}

// ReplaceNearSecond locks zones through the same helper, then audit: another table, no cycle.
func ReplaceNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceNearSecond:`locks\(table:zones ROW SHARE@L0, row:zones FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "zones", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// JoinForward locks devices, then owners: strings.Join of a constant list.
func JoinForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinForward:`locks\(table:devices ROW SHARE@L0, row:devices FOR UPDATE@L0, table:owners ROW SHARE@L0, row:owners FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "devices", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "owners", id) // want `lock\-order inversion: rows of devices and rows of owners are locked in opposite orders`
	})
}

// JoinBackward locks owners, then devices: the opposite order.
func JoinBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinBackward:`locks\(table:owners ROW SHARE@L0, row:owners FOR UPDATE@L0, table:devices ROW SHARE@L0, row:devices FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "owners", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "devices", id)
	})
}

// JoinNearFirst locks audit, then sensors through the helper.
func JoinNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:sensors ROW SHARE@L0, row:sensors FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "sensors", id)
	})
}

// JoinNearSecond locks gateways through the same helper, then audit: another table, no cycle.
func JoinNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinNearSecond:`locks\(table:gateways ROW SHARE@L0, row:gateways FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "gateways", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// FileBackward locks seats, then tickets: the opposite order.
func FileBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileBackward:`locks\(table:seats ROW SHARE@L0, row:seats FOR UPDATE@L0, table:tickets ROW SHARE@L0, row:tickets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_seat", id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_ticket", id) // want `lock\-order inversion: rows of seats and rows of tickets are locked in opposite orders`
	})
}

// FileNearFirst locks audit, then passes through the helper.
func FileNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:passes ROW SHARE@L0, row:passes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_pass", id)
	})
}

// FileNearSecond locks gifts through the same helper, then audit: another table, no cycle.
func FileNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileNearSecond:`locks\(table:gifts ROW SHARE@L0, row:gifts FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_gift", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// NamedForward locks vouchers, then wallets: (embed.FS).ReadFile in a helper of the helper.
func NamedForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedForward:`locks\(table:vouchers ROW SHARE@L0, row:vouchers FOR UPDATE@L0, table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "voucher", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "wallet", id) // want `lock\-order inversion: rows of vouchers and rows of wallets are locked in opposite orders`
	})
}

// NamedBackward locks wallets, then vouchers: the opposite order.
func NamedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedBackward:`locks\(table:wallets ROW SHARE@L0, row:wallets FOR UPDATE@L0, table:vouchers ROW SHARE@L0, row:vouchers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "wallet", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "voucher", id)
	})
}

// NamedNearFirst locks audit, then badges through the helper.
func NamedNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:badges ROW SHARE@L0, row:badges FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "badge", id)
	})
}

// NamedNearSecond locks tokens through the same helper, then audit: another table, no cycle.
func NamedNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedNearSecond:`locks\(table:tokens ROW SHARE@L0, row:tokens FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "token", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// TwoLevelsBackward locks guests, then rooms: the opposite order.
func TwoLevelsBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsBackward:`locks\(table:guests ROW SHARE@L0, row:guests FOR UPDATE@L0, table:rooms ROW SHARE@L0, row:rooms FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "guests", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "rooms", id) // want `lock\-order inversion: rows of guests and rows of rooms are locked in opposite orders`
	})
}

// TwoLevelsNearFirst locks audit, then suites through the helper.
func TwoLevelsNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsNearFirst:`locks\(table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0, table:suites ROW SHARE@L0, row:suites FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return reserve(ctx, tx, "suites", id)
	})
}

// TwoLevelsNearSecond locks staff through the same helper, then audit: another table, no cycle.
func TwoLevelsNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsNearSecond:`locks\(table:staff ROW SHARE@L0, row:staff FOR UPDATE@L0, table:audit ROW SHARE@L0, row:audit FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "staff", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}
