package keyedgates // want package:"sql=true edges=194"

// An inode's node row is the parent of its xattrs, symlink, quota and
// stats, which name the inode "inode" or "dir_inode". A transaction that
// looks the inode up, locks its node row and then deletes its other rows is
// serialised by the node row; so is one that locks the node rows of a set
// of inodes, then deletes the xattrs of that very set.

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// UnlinkInodes locks the node rows of a set of inodes (in no order:
// reported), then deletes the xattrs of that very set: two executions that
// delete the same xattr rows both hold that inode's node row first.
func UnlinkInodes(ctx context.Context, tx pgx.Tx, inodes []int64) error { // want UnlinkInodes:`^locks\(`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = ANY($1) FOR UPDATE", inodes); err != nil { // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of kg_nodes`
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_xattrs WHERE inode = ANY($1)", inodes)
	return err
}

// UnlinkOthers locks the node rows of one set and deletes the xattrs of
// another: the node rows stand for nothing there.
func UnlinkOthers(ctx context.Context, tx pgx.Tx, inodes, others []int64) error { // want UnlinkOthers:`^locks\(`
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = ANY($1) FOR UPDATE", inodes); err != nil { // want `unordered multi-row lock: SELECT \.\.\. FOR UPDATE takes rows of kg_nodes`
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_xattrs WHERE inode = ANY($1)", others) // want `unordered multi-row lock: DELETE takes rows of kg_xattrs`
	return err
}

// RemoveDir looks the directory up, locks its node row, then deletes its
// quota and its stats.
func RemoveDir(ctx context.Context, tx pgx.Tx, parent int64, name string) error { // want RemoveDir:`^locks\(`
	var ino int64
	if err := tx.QueryRow(ctx, "SELECT inode FROM kg_edges WHERE parent = $1 AND name = $2", parent, name).Scan(&ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = $1 FOR UPDATE", ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM kg_quotas WHERE dir_inode = $1", ino); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_dir_stats WHERE dir_inode = $1", ino) // want `(?s)lock-order inversion: rows of kg_dir_stats and rows of kg_quotas.*path 1: keyedgates\.ReplaceDirRelooked holds`
	return err
}

// ReplaceDir removes a directory a rename replaces: its stats, then its
// quota, the other order, under the same node row.
func ReplaceDir(ctx context.Context, tx pgx.Tx, parent int64, name string) error { // want ReplaceDir:`^locks\(`
	var ino int64
	if err := tx.QueryRow(ctx, "SELECT inode FROM kg_edges WHERE parent = $1 AND name = $2", parent, name).Scan(&ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = $1 FOR UPDATE", ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM kg_dir_stats WHERE dir_inode = $1", ino); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_quotas WHERE dir_inode = $1", ino)
	return err
}

// DropLink locks a link's node row, then deletes its symlink and xattr
// rows.
func DropLink(ctx context.Context, tx pgx.Tx, parent int64, name string) error { // want DropLink:`^locks\(`
	var ino int64
	if err := tx.QueryRow(ctx, "SELECT inode FROM kg_edges WHERE parent = $1 AND name = $2", parent, name).Scan(&ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = $1 FOR UPDATE", ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM kg_symlinks WHERE inode = $1", ino); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_xattrs WHERE inode = $1", ino) // want `(?s)lock-order inversion: rows of kg_symlinks and rows of kg_xattrs.*path 2: keyedgates\.DropLinkUnderParent holds rows of kg_xattrs`
	return err
}

// DropLinkUnderParent locks the parent directory's node row, not the
// link's, then deletes the link's xattrs and symlink in the other order: two
// links of one inode in two directories deadlock with DropLink.
func DropLinkUnderParent(ctx context.Context, tx pgx.Tx, parent int64, name string) error { // want DropLinkUnderParent:`^locks\(`
	var ino int64
	if err := tx.QueryRow(ctx, "SELECT inode FROM kg_edges WHERE parent = $1 AND name = $2", parent, name).Scan(&ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = $1 FOR UPDATE", parent); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM kg_xattrs WHERE inode = $1", ino); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_symlinks WHERE inode = $1", ino) // reported at DropLink
	return err
}

// ReplaceDirRelooked locks the directory's node row, then looks the entry
// up again before deleting its stats and quota: ino may name another
// directory by then, whose node row it does not hold.
func ReplaceDirRelooked(ctx context.Context, tx pgx.Tx, parent int64, name string) error { // want ReplaceDirRelooked:`^locks\(`
	var ino int64
	if err := tx.QueryRow(ctx, "SELECT inode FROM kg_edges WHERE parent = $1 AND name = $2", parent, name).Scan(&ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM kg_nodes WHERE inode = $1 FOR UPDATE", ino); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, "SELECT inode FROM kg_edges WHERE parent = $1 AND name = $2", parent, name).Scan(&ino); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM kg_dir_stats WHERE dir_inode = $1", ino); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM kg_quotas WHERE dir_inode = $1", ino)
	return err
}
