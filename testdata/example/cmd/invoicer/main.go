// Command invoicer runs the monthly invoice batch.
package main

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"example.com/saas/billing"
)

func main() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	for id := int64(1); id <= 100; id++ {
		if err := billing.InvoiceAccount(ctx, pool, id); err != nil {
			log.Printf("account %d: %v", id, err)
		}
	}
}
