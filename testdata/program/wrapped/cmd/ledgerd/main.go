// Command ledgerd wires the pgx store into the ledger.
package main

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/wrapped/ledger"
	"program/wrapped/pg"
)

func main() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	l := &ledger.Ledger{Conn: &pg.DB{Pool: pool}}
	if err := l.Post(ctx, 1, 2); err != nil {
		log.Print(err)
	}
}
