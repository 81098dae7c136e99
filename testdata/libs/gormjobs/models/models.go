package models // want package:"sql=true edges=0"

// The package holds the GORM models shared by the stores; it imports no
// database API, and is analysed for its models' table names.

// Account is a row of billing_accounts: its TableName, declared here in
// another package than the queries, says so.
type Account struct {
	ID      int64
	Balance int64
}

// TableName overrides GORM's default table name.
func (Account) TableName() string { return "billing_accounts" } // want TableName:`table\("billing_accounts"\)`
