package lockmodel

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Split returns the statements of a SQL string, in order, without their
// terminating semicolons. Reproducers use it to replay the statements of a
// multi-statement string one by one, inside a transaction, so that another
// session can run between them.
func Split(sql string) ([]string, error) {
	stmts, err := pg_query.SplitWithParser(sql, true)
	if err != nil {
		return nil, fmt.Errorf("split SQL: %w", err)
	}
	return stmts, nil
}
