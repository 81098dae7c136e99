package sqlsite

import (
	"maps"
	"slices"
)

// QueryMethodNames lists, sorted, the method names that run a query given
// as a string. A package whose source never mentions one of them, and that
// imports no database API directly or through other packages, runs no SQL:
// drivers use this to skip it without type-checking it.
func QueryMethodNames() []string {
	return slices.Sorted(maps.Keys(queryMethods))
}
