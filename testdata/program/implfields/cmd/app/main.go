// Command app wires a back end into the store.
package main

import (
	"context"
	"database/sql"
	"os"

	"program/implfields/lite"
	"program/implfields/metered"
	"program/implfields/pg"
	"program/implfields/plugin"
	"program/implfields/store"
)

func main() {
	pool, err := sql.Open("postgres", os.Getenv("DATABASE_URL"))
	if err != nil {
		os.Exit(1)
	}
	var db plugin.DB = pg.New(pool)
	if os.Getenv("LITE") != "" {
		db = lite.New(pool)
	}
	if os.Getenv("METER") != "" {
		db = metered.Wrap(db)
	}
	s := &store.Store{DB: db}
	_ = s.Delete(context.Background(), "r")
	_ = s.Update(context.Background(), "r", []int64{1, 2}, []int64{3})
}
