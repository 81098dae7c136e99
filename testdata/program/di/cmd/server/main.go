// Command server wires the Postgres adapter into the billing service.
package main

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/di/domain"
	"program/di/postgres"
)

func main() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	b := &domain.Billing{UOW: postgres.UOW{Pool: pool}, Ledger: &postgres.Ledger{Pool: pool}}
	if err := b.Pay(ctx, 1, 2); err != nil {
		log.Print(err)
	}
}
