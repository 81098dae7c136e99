// Package models holds the GORM models shared by the stores.
package models

// Account is a row of billing_accounts: its TableName, declared here in
// another package than the queries, says so.
type Account struct {
	ID      int64
	Balance int64
}

// TableName overrides GORM's default table name.
func (Account) TableName() string { return "billing_accounts" }
