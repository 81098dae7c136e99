package splice // want package:"sql=true edges=[0-9]+"

// Each shape below splices a table name (or a file name) into SQL through a
// helper that takes it as a parameter; every call site binds it to its own
// constant. The pairs of functions named after a shape take two tables in
// opposite orders, a lock-order inversion visible only when the spliced
// text is resolved. The Near pairs pass two different tables to the same
// helper around one direct lock of audit_trail: with one lock class per constant
// there is no cycle, where a union of the helper's callers would see one.

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/splice/sqltext"
)

// lockAudit locks the audit_trail row directly.
func lockAudit(ctx context.Context, tx pgx.Tx, id int64) error {
	_, err := tx.Exec(ctx, "SELECT id FROM audit_trail WHERE id = $1 FOR UPDATE", id)
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

// SprintfForward locks purchase_orders, then consignments: fmt.Sprintf with %s.
func SprintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfForward:`locks\(table:purchase_orders ROW SHARE@L0, row:purchase_orders FOR UPDATE@L0, table:consignments ROW SHARE@L0, row:consignments FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "purchase_orders", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "consignments", id)
	})
}

// SprintfBackward locks consignments, then purchase_orders: the opposite order.
func SprintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfBackward:`locks\(table:consignments ROW SHARE@L0, row:consignments FOR UPDATE@L0, table:purchase_orders ROW SHARE@L0, row:purchase_orders FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "consignments", id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "purchase_orders", id) // want `lock\-order inversion: rows of consignments and rows of purchase_orders are locked in opposite orders`
	})
}

// SprintfNearFirst locks audit_trail, then quotes through the helper.
func SprintfNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:quotes ROW SHARE@L0, row:quotes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockRow(ctx, tx, "quotes", id)
	})
}

// SprintfNearSecond locks drafts through the same helper, then audit_trail: another table, no cycle.
func SprintfNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want SprintfNearSecond:`locks\(table:drafts ROW SHARE@L0, row:drafts FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockRow(ctx, tx, "drafts", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// ConcatBackward locks rebates, then trolleys: the opposite order.
func ConcatBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatBackward:`locks\(table:rebates ROW EXCLUSIVE@L0, row:rebates FOR NO KEY UPDATE@L0, table:trolleys ROW EXCLUSIVE@L0, row:trolleys FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "rebates", id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "trolleys", id) // want `lock\-order inversion: rows of rebates and rows of trolleys are locked in opposite orders`
	})
}

// ConcatNearFirst locks audit_trail, then baskets through the helper.
func ConcatNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:baskets ROW EXCLUSIVE@L0, row:baskets FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.Touch(ctx, tx, "baskets", id)
	})
}

// ConcatNearSecond locks promos through the same helper, then audit_trail: another table, no cycle.
func ConcatNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ConcatNearSecond:`locks\(table:promos ROW EXCLUSIVE@L0, row:promos FOR NO KEY UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Touch(ctx, tx, "promos", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// QuotedBackward locks daybooks, then folios: the opposite order.
func QuotedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedBackward:`locks\(table:daybooks ROW SHARE@L0, row:daybooks FOR UPDATE@L0, table:folios ROW SHARE@L0, row:folios FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockQuoted(ctx, tx, "daybooks", id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "folios", id) // want `lock\-order inversion: rows of daybooks and rows of folios are locked in opposite orders`
	})
}

// QuotedNearFirst locks audit_trail, then budgets through the helper.
func QuotedNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:budgets ROW SHARE@L0, row:budgets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockQuoted(ctx, tx, "budgets", id)
	})
}

// QuotedNearSecond locks forecasts through the same helper, then audit_trail: another table, no cycle.
func QuotedNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want QuotedNearSecond:`locks\(table:forecasts ROW SHARE@L0, row:forecasts FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
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

// ShardNearFirst locks audit_trail, then events_3 through the helper.
func ShardNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:events_3 ROW SHARE@L0, row:events_3 FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockShard(ctx, tx, 3, id)
	})
}

// ShardNearSecond locks events_4 through the same helper, then audit_trail: another table, no cycle.
func ShardNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ShardNearSecond:`locks\(table:events_4 ROW SHARE@L0, row:events_4 FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockShard(ctx, tx, 4, id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// PrintfForward locks bills, then chargebacks: a printf-like wrapper: the format and its arguments are the caller's.
func PrintfForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfForward:`locks\(table:bills ROW EXCLUSIVE@L0, row:bills FOR NO KEY UPDATE@L0, table:chargebacks ROW EXCLUSIVE@L0, row:chargebacks FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "bills"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "chargebacks") // want `lock\-order inversion: rows of bills and rows of chargebacks are locked in opposite orders`
	})
}

// PrintfBackward locks chargebacks, then bills: the opposite order.
func PrintfBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfBackward:`locks\(table:chargebacks ROW EXCLUSIVE@L0, row:chargebacks FOR NO KEY UPDATE@L0, table:bills ROW EXCLUSIVE@L0, row:bills FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "chargebacks"); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "bills")
	})
}

// PrintfNearFirst locks audit_trail, then receipts through the helper.
func PrintfNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:receipts ROW EXCLUSIVE@L0, row:receipts FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "receipts")
	})
}

// PrintfNearSecond locks disputes through the same helper, then audit_trail: another table, no cycle.
func PrintfNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want PrintfNearSecond:`locks\(table:disputes ROW EXCLUSIVE@L0, row:disputes FOR NO KEY UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Execf(ctx, tx, id, "UPDATE %s SET n = n + 1 WHERE id = $1", "disputes"); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// BuilderBackward locks lanes, then parcel_crates: the opposite order.
func BuilderBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderBackward:`locks\(table:lanes ROW SHARE@L0, row:lanes FOR UPDATE@L0, table:parcel_crates ROW SHARE@L0, row:parcel_crates FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "lanes", id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "parcel_crates", id) // want `lock\-order inversion: rows of lanes and rows of parcel_crates are locked in opposite orders`
	})
}

// BuilderNearFirst locks audit_trail, then skids through the helper.
func BuilderNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:skids ROW SHARE@L0, row:skids FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockBuilt(ctx, tx, "skids", id)
	})
}

// BuilderNearSecond locks docks through the same helper, then audit_trail: another table, no cycle.
func BuilderNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BuilderNearSecond:`locks\(table:docks ROW SHARE@L0, row:docks FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockBuilt(ctx, tx, "docks", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// BufferForward locks inventory_lots, then shelf_slots: bytes.Buffer.
func BufferForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferForward:`locks\(table:inventory_lots ROW EXCLUSIVE@L0, row:inventory_lots FOR NO KEY UPDATE@L0, table:shelf_slots ROW EXCLUSIVE@L0, row:shelf_slots FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "inventory_lots", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "shelf_slots", id) // want `lock\-order inversion: rows of inventory_lots and rows of shelf_slots are locked in opposite orders`
	})
}

// BufferBackward locks shelf_slots, then inventory_lots: the opposite order.
func BufferBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferBackward:`locks\(table:shelf_slots ROW EXCLUSIVE@L0, row:shelf_slots FOR NO KEY UPDATE@L0, table:inventory_lots ROW EXCLUSIVE@L0, row:inventory_lots FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "shelf_slots", id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "inventory_lots", id)
	})
}

// BufferNearFirst locks audit_trail, then racks through the helper.
func BufferNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:racks ROW EXCLUSIVE@L0, row:racks FOR NO KEY UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.UpdateBuffered(ctx, tx, "racks", id)
	})
}

// BufferNearSecond locks aisles through the same helper, then audit_trail: another table, no cycle.
func BufferNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want BufferNearSecond:`locks\(table:aisles ROW EXCLUSIVE@L0, row:aisles FOR NO KEY UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.UpdateBuffered(ctx, tx, "aisles", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// ReplaceForward locks orgs, then tiers: strings.ReplaceAll and strings.TrimSpace of a constant template.
func ReplaceForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceForward:`locks\(table:orgs ROW SHARE@L0, row:orgs FOR UPDATE@L0, table:tiers ROW SHARE@L0, row:tiers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "orgs", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "tiers", id) // want `lock\-order inversion: rows of orgs and rows of tiers are locked in opposite orders`
	})
}

// ReplaceBackward locks tiers, then orgs: the opposite order.
func ReplaceBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceBackward:`locks\(table:tiers ROW SHARE@L0, row:tiers FOR UPDATE@L0, table:orgs ROW SHARE@L0, row:orgs FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "tiers", id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "orgs", id)
	})
}

// ReplaceNearFirst locks audit_trail, then regions through the helper.
func ReplaceNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:regions ROW SHARE@L0, row:regions FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockReplaced(ctx, tx, "regions", id)
	})
}

// ReplaceNearSecond locks zones through the same helper, then audit_trail: another table, no cycle.
func ReplaceNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want ReplaceNearSecond:`locks\(table:zones ROW SHARE@L0, row:zones FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockReplaced(ctx, tx, "zones", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// JoinBackward locks custodians, then widgets: the opposite order.
func JoinBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinBackward:`locks\(table:custodians ROW SHARE@L0, row:custodians FOR UPDATE@L0, table:widgets ROW SHARE@L0, row:widgets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "custodians", id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "widgets", id) // want `lock\-order inversion: rows of custodians and rows of widgets are locked in opposite orders`
	})
}

// JoinNearFirst locks audit_trail, then sensors through the helper.
func JoinNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:sensors ROW SHARE@L0, row:sensors FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.LockColumns(ctx, tx, "sensors", id)
	})
}

// JoinNearSecond locks gateways through the same helper, then audit_trail: another table, no cycle.
func JoinNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want JoinNearSecond:`locks\(table:gateways ROW SHARE@L0, row:gateways FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.LockColumns(ctx, tx, "gateways", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// FileBackward locks berths, then entry_tickets: the opposite order.
func FileBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileBackward:`locks\(table:berths ROW SHARE@L0, row:berths FOR UPDATE@L0, table:entry_tickets ROW SHARE@L0, row:entry_tickets FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_seat", id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_ticket", id) // want `lock\-order inversion: rows of berths and rows of entry_tickets are locked in opposite orders`
	})
}

// FileNearFirst locks audit_trail, then hall_passes through the helper.
func FileNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:hall_passes ROW SHARE@L0, row:hall_passes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.RunFile(ctx, tx, "lock_pass", id)
	})
}

// FileNearSecond locks gift_tokens through the same helper, then audit_trail: another table, no cycle.
func FileNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want FileNearSecond:`locks\(table:gift_tokens ROW SHARE@L0, row:gift_tokens FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.RunFile(ctx, tx, "lock_gift", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
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

// NamedBackward locks coin_purses, then credit_notes: the opposite order.
func NamedBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedBackward:`locks\(table:coin_purses ROW SHARE@L0, row:coin_purses FOR UPDATE@L0, table:credit_notes ROW SHARE@L0, row:credit_notes FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "wallet", id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "voucher", id) // want `lock\-order inversion: rows of coin_purses and rows of credit_notes are locked in opposite orders`
	})
}

// NamedNearFirst locks audit_trail, then lanyards through the helper.
func NamedNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:lanyards ROW SHARE@L0, row:lanyards FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return sqltext.Lock(ctx, tx, "badge", id)
	})
}

// NamedNearSecond locks tally_marks through the same helper, then audit_trail: another table, no cycle.
func NamedNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want NamedNearSecond:`locks\(table:tally_marks ROW SHARE@L0, row:tally_marks FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := sqltext.Lock(ctx, tx, "token", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}

// TwoLevelsForward locks cabins, then lodgers: a helper of this package passing the table on to sqltext.LockRow.
func TwoLevelsForward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsForward:`locks\(table:cabins ROW SHARE@L0, row:cabins FOR UPDATE@L0, table:lodgers ROW SHARE@L0, row:lodgers FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "cabins", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "lodgers", id) // want `lock\-order inversion: rows of cabins and rows of lodgers are locked in opposite orders`
	})
}

// TwoLevelsBackward locks lodgers, then cabins: the opposite order.
func TwoLevelsBackward(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsBackward:`locks\(table:lodgers ROW SHARE@L0, row:lodgers FOR UPDATE@L0, table:cabins ROW SHARE@L0, row:cabins FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "lodgers", id); err != nil {
			return err
		}
		return reserve(ctx, tx, "cabins", id)
	})
}

// TwoLevelsNearFirst locks audit_trail, then suites through the helper.
func TwoLevelsNearFirst(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsNearFirst:`locks\(table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0, table:suites ROW SHARE@L0, row:suites FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockAudit(ctx, tx, id); err != nil {
			return err
		}
		return reserve(ctx, tx, "suites", id)
	})
}

// TwoLevelsNearSecond locks staff through the same helper, then audit_trail: another table, no cycle.
func TwoLevelsNearSecond(ctx context.Context, pool *pgxpool.Pool, id int64) error { // want TwoLevelsNearSecond:`locks\(table:staff ROW SHARE@L0, row:staff FOR UPDATE@L0, table:audit_trail ROW SHARE@L0, row:audit_trail FOR UPDATE@L0\)`
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := reserve(ctx, tx, "staff", id); err != nil {
			return err
		}
		return lockAudit(ctx, tx, id)
	})
}
