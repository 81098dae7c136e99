// Command api wires the unit of work.
package main

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/ports/postgres"
	"program/ports/service"
)

func main() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	d := &service.Dispatch{UOW: &postgres.UOW{Pool: pool}}
	if err := d.Scan(ctx, 1, 2); err != nil {
		log.Print(err)
	}
}
