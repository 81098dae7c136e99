// Package funcfields calls functions kept in struct fields: a saga's steps,
// a slice of structs of method values run in a loop, and hooks in a struct
// field or a map. The functions the package stores into a field are what a
// call through it runs; a slice literal of steps runs in its order.
package funcfields

import (
	"context"
	"database/sql"
)

// stepFunc is one action of a saga step, run in the saga's transaction.
type stepFunc func(ctx context.Context, tx *sql.Tx, a, b int64) error

// step pairs an action with its compensation.
type step struct {
	do, undo stepFunc
}

// tripSaga reserves a flight seat, then a hotel room.
type tripSaga struct {
	db    *sql.DB
	steps []step
}

func newTripSaga(db *sql.DB) *tripSaga {
	s := &tripSaga{db: db}
	s.steps = []step{
		{do: s.holdSeat, undo: s.releaseSeat},
		{do: s.holdRoom, undo: s.releaseRoom},
	}
	return s
}

func (s *tripSaga) holdSeat(ctx context.Context, tx *sql.Tx, flight, _ int64) error { // want holdSeat:`^locks\(table:flights ROW EXCLUSIVE@p2, row:flights FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE flights SET seats_left = seats_left - 1 WHERE id = $1`, flight)
	return err
}

func (s *tripSaga) releaseSeat(ctx context.Context, tx *sql.Tx, flight, _ int64) error { // want releaseSeat:`^locks\(table:flights ROW EXCLUSIVE@p2, row:flights FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE flights SET seats_left = seats_left + 1 WHERE id = $1`, flight)
	return err
}

func (s *tripSaga) holdRoom(ctx context.Context, tx *sql.Tx, _, hotel int64) error { // want holdRoom:`^locks\(table:hotels ROW EXCLUSIVE@p2, row:hotels FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = $1`, hotel)
	return err
}

func (s *tripSaga) releaseRoom(ctx context.Context, tx *sql.Tx, _, hotel int64) error { // want releaseRoom:`^locks\(table:hotels ROW EXCLUSIVE@p2, row:hotels FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE hotels SET rooms_left = rooms_left + 1 WHERE id = $1`, hotel)
	return err
}

// reserve runs the steps forward in one transaction: flights, then hotels.
func (s *tripSaga) reserve(ctx context.Context, flight, hotel int64) error { // want reserve:`^locks\(table:flights ROW EXCLUSIVE@L0, row:flights FOR NO KEY UPDATE@L0, table:hotels ROW EXCLUSIVE@L0, row:hotels FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, st := range s.steps {
		if err := st.do(ctx, tx, flight, hotel); err != nil { // want `(?s)lock-order inversion: rows of flights and rows of hotels are locked in opposite orders.*funcfields.tripSaga.reserve holds rows of flights.*calls funcfields.tripSaga.holdRoom.*funcfields.tripSaga.compensate holds rows of hotels.*calls funcfields.tripSaga.releaseSeat`
			return err
		}
	}
	return tx.Commit()
}

// compensate runs the compensations backward in one transaction: hotels,
// then flights. With a reserve of the same trip, a deadlock.
func (s *tripSaga) compensate(ctx context.Context, flight, hotel int64) error { // want compensate:`^locks\(table:hotels ROW EXCLUSIVE@L0, row:hotels FOR NO KEY UPDATE@L0, table:flights ROW EXCLUSIVE@L0, row:flights FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i := len(s.steps) - 1; i >= 0; i-- {
		if err := s.steps[i].undo(ctx, tx, flight, hotel); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// tourSaga books a bus seat, then a museum ticket, and cancels in the same
// order: no inversion.
type tourSaga struct {
	db    *sql.DB
	steps []step
}

func newTourSaga(db *sql.DB) *tourSaga {
	s := &tourSaga{db: db}
	s.steps = []step{
		{do: s.holdBus, undo: s.releaseBus},
		{do: s.holdMuseum, undo: s.releaseMuseum},
	}
	return s
}

func (s *tourSaga) holdBus(ctx context.Context, tx *sql.Tx, bus, _ int64) error { // want holdBus:`^locks\(table:buses ROW EXCLUSIVE@p2, row:buses FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE buses SET seats_left = seats_left - 1 WHERE id = $1`, bus)
	return err
}

func (s *tourSaga) releaseBus(ctx context.Context, tx *sql.Tx, bus, _ int64) error { // want releaseBus:`^locks\(table:buses ROW EXCLUSIVE@p2, row:buses FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE buses SET seats_left = seats_left + 1 WHERE id = $1`, bus)
	return err
}

func (s *tourSaga) holdMuseum(ctx context.Context, tx *sql.Tx, _, museum int64) error { // want holdMuseum:`^locks\(table:museums ROW EXCLUSIVE@p2, row:museums FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE museums SET tickets_left = tickets_left - 1 WHERE id = $1`, museum)
	return err
}

func (s *tourSaga) releaseMuseum(ctx context.Context, tx *sql.Tx, _, museum int64) error { // want releaseMuseum:`^locks\(table:museums ROW EXCLUSIVE@p2, row:museums FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE museums SET tickets_left = tickets_left + 1 WHERE id = $1`, museum)
	return err
}

// book runs the steps forward: buses, then museums.
func (s *tourSaga) book(ctx context.Context, bus, museum int64) error { // want book:`^locks\(table:buses ROW EXCLUSIVE@L0, row:buses FOR NO KEY UPDATE@L0, table:museums ROW EXCLUSIVE@L0, row:museums FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, st := range s.steps {
		if err := st.do(ctx, tx, bus, museum); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// cancel runs the compensations forward too: buses, then museums. Silent.
func (s *tourSaga) cancel(ctx context.Context, bus, museum int64) error { // want cancel:`^locks\(table:buses ROW EXCLUSIVE@L0, row:buses FOR NO KEY UPDATE@L0, table:museums ROW EXCLUSIVE@L0, row:museums FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i := 0; i < len(s.steps); i++ {
		if err := s.steps[i].undo(ctx, tx, bus, museum); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// rebook names the steps by index, in the slice's order: buses, then
// museums. Silent.
func (s *tourSaga) rebook(ctx context.Context, bus, museum int64) error { // want rebook:`^locks\(table:buses ROW EXCLUSIVE@L0, row:buses FOR NO KEY UPDATE@L0, table:museums ROW EXCLUSIVE@L0, row:museums FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.steps[0].undo(ctx, tx, bus, museum); err != nil {
		return err
	}
	if err := s.steps[1].do(ctx, tx, bus, museum); err != nil {
		return err
	}
	return tx.Commit()
}

// cruiseSaga boards a cabin, then an excursion, in one transaction, and
// compensates backward with one transaction per step: each compensation
// holds nothing of the other's. Silent.
type cruiseSaga struct {
	db    *sql.DB
	steps []step
}

func newCruiseSaga(db *sql.DB) *cruiseSaga {
	s := &cruiseSaga{db: db}
	s.steps = []step{
		{do: s.holdCabin, undo: s.releaseCabin},
		{do: s.holdExcursion, undo: s.releaseExcursion},
	}
	return s
}

func (s *cruiseSaga) holdCabin(ctx context.Context, tx *sql.Tx, cabin, _ int64) error { // want holdCabin:`^locks\(table:cabins ROW EXCLUSIVE@p2, row:cabins FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE cabins SET berths_left = berths_left - 1 WHERE id = $1`, cabin)
	return err
}

func (s *cruiseSaga) releaseCabin(ctx context.Context, tx *sql.Tx, cabin, _ int64) error { // want releaseCabin:`^locks\(table:cabins ROW EXCLUSIVE@p2, row:cabins FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE cabins SET berths_left = berths_left + 1 WHERE id = $1`, cabin)
	return err
}

func (s *cruiseSaga) holdExcursion(ctx context.Context, tx *sql.Tx, _, exc int64) error { // want holdExcursion:`^locks\(table:excursions ROW EXCLUSIVE@p2, row:excursions FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE excursions SET places_left = places_left - 1 WHERE id = $1`, exc)
	return err
}

func (s *cruiseSaga) releaseExcursion(ctx context.Context, tx *sql.Tx, _, exc int64) error { // want releaseExcursion:`^locks\(table:excursions ROW EXCLUSIVE@p2, row:excursions FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE excursions SET places_left = places_left + 1 WHERE id = $1`, exc)
	return err
}

func (s *cruiseSaga) board(ctx context.Context, cabin, exc int64) error { // want board:`^locks\(table:cabins ROW EXCLUSIVE@L0, row:cabins FOR NO KEY UPDATE@L0, table:excursions ROW EXCLUSIVE@L0, row:excursions FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, st := range s.steps {
		if err := st.do(ctx, tx, cabin, exc); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *cruiseSaga) disembark(ctx context.Context, cabin, exc int64) error { // want disembark:`^locks\(table:cabins ROW EXCLUSIVE@L0, row:cabins FOR NO KEY UPDATE@L0, table:excursions ROW EXCLUSIVE@L0, row:excursions FOR NO KEY UPDATE@L0\)$`
	for i := len(s.steps) - 1; i >= 0; i-- {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := s.steps[i].undo(ctx, tx, cabin, exc); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// railSaga appends its steps one by one: the order of the slice is not one
// literal, and a loop over it is not set against itself. Silent (an
// inversion between two such loops would be missed: the order is unknown).
type railSaga struct {
	db    *sql.DB
	steps []step
}

func newRailSaga(db *sql.DB) *railSaga {
	s := &railSaga{db: db}
	s.steps = append(s.steps, step{do: s.holdTrain})
	s.steps = append(s.steps, step{do: s.holdPlatform})
	return s
}

func (s *railSaga) holdTrain(ctx context.Context, tx *sql.Tx, train, _ int64) error { // want holdTrain:`^locks\(table:trains ROW EXCLUSIVE@p2, row:trains FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE trains SET seats_left = seats_left - 1 WHERE id = $1`, train)
	return err
}

func (s *railSaga) holdPlatform(ctx context.Context, tx *sql.Tx, _, platform int64) error { // want holdPlatform:`^locks\(table:platforms ROW EXCLUSIVE@p2, row:platforms FOR NO KEY UPDATE@p2\) holds\[0 1\]$`
	_, err := tx.ExecContext(ctx, `UPDATE platforms SET slots_left = slots_left - 1 WHERE id = $1`, platform)
	return err
}

func (s *railSaga) depart(ctx context.Context, train, platform int64) error { // want depart:`^locks\(table:trains ROW EXCLUSIVE@L0, row:trains FOR NO KEY UPDATE@L0, table:platforms ROW EXCLUSIVE@L0, row:platforms FOR NO KEY UPDATE@L0\)$`
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, st := range s.steps {
		if err := st.do(ctx, tx, train, platform); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Run wires the sagas, so that nothing here is dead code.
func Run(ctx context.Context, db *sql.DB) error {
	trip, tour, cruise, rail := newTripSaga(db), newTourSaga(db), newCruiseSaga(db), newRailSaga(db)
	for _, f := range []func(context.Context, int64, int64) error{
		trip.reserve, trip.compensate, tour.book, tour.cancel, tour.rebook, cruise.board, cruise.disembark, rail.depart,
	} {
		if err := f(ctx, 1, 1); err != nil {
			return err
		}
	}
	return nil
}
