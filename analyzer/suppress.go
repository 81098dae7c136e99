package analyzer

import "github.com/pglockorder/pglockorder/internal/category"

// CategoryIgnore is the category of a malformed or stale
// //pglockorder:ignore directive (see findings.Suppress).
const CategoryIgnore = category.IgnoreDirective
