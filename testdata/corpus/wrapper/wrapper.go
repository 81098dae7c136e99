package wrapper // want package:"sql=true edges=18"

import (
	"context"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store logs every statement it runs.
type Store struct {
	pool *pgxpool.Pool
}

func (s *Store) exec(ctx context.Context, tx pgx.Tx, query string, args ...any) error { // want exec:`sinks\(3@p2\)`
	log.Printf("exec: %s %v", query, args)
	_, err := tx.Exec(ctx, query, args...)
	return err
}

// Promote locks the member, then the team.
func (s *Store) Promote(ctx context.Context, memberID, teamID int64) error { // want Promote:`locks\(.*row:members FOR NO KEY UPDATE@L0.*row:teams FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := s.exec(ctx, tx, "UPDATE members SET role = 'lead' WHERE id = $1", memberID); err != nil {
		return err
	}
	if err := s.exec(ctx, tx, "UPDATE teams SET lead_id = $2 WHERE id = $1", teamID, memberID); err != nil { // want `lock-order inversion: rows of members and rows of teams are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Disband locks the team, then its members.
func (s *Store) Disband(ctx context.Context, teamID int64) error { // want Disband:`locks\(.*row:teams FOR NO KEY UPDATE@L0.*row:members FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := s.exec(ctx, tx, "UPDATE teams SET disbanded = true WHERE id = $1", teamID); err != nil {
		return err
	}
	if err := s.exec(ctx, tx, "UPDATE members SET team_id = NULL WHERE team_id = $1", teamID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Rename uses the wrapper in one order only: silent.
func (s *Store) Rename(ctx context.Context, teamID int64, name string) error { // want Rename:`locks\(.*row:projects FOR NO KEY UPDATE@L0.*row:channels FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := s.exec(ctx, tx, "UPDATE projects SET team_name = $2 WHERE team_id = $1", teamID, name); err != nil {
		return err
	}
	if err := s.exec(ctx, tx, "UPDATE channels SET team_name = $2 WHERE team_id = $1", teamID, name); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
