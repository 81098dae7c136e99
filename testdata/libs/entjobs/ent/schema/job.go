// Package schema declares the ent schema the entjobs scenario is generated
// from (go run entgo.io/ent/cmd/ent generate --feature sql/lock ./entjobs/ent/schema).
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Job holds the schema definition for the Job entity.
type Job struct {
	ent.Schema
}

// Fields of the Job.
func (Job) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("account_id"),
	}
}

// Account holds the schema definition for the Account entity.
type Account struct {
	ent.Schema
}

// Fields of the Account.
func (Account) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("balance"),
	}
}
