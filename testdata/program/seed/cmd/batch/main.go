// Command batch runs the invoice job and serves the API.
package main

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"program/seed/api"
	"program/seed/billing"
)

func main() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	j := &billing.Job{Pool: pool}
	p := &api.Plans{Pool: pool}
	if err := j.InvoiceAccount(ctx, 1); err != nil {
		log.Print(err)
	}
	if err := p.ChangePlan(ctx, 1, "pro"); err != nil {
		log.Print(err)
	}
}
