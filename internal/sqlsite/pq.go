package sqlsite

import (
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// pkgPq is lib/pq. Its query texts come from two helpers: CopyIn (and
// CopyInSchema), whose text a prepared statement runs once per row (COPY
// FROM STDIN: the table's ROW EXCLUSIVE lock and the rows' foreign-key
// checks, as the INSERT of those columns), and QuoteIdentifier, spliced
// into text built with Sprintf or +.
const pkgPq = "github.com/lib/pq"

// pqText resolves the text of a call to lib/pq's CopyIn, CopyInSchema or
// QuoteIdentifier with constant arguments.
func (r *resolver) pqText(c *ssa.Call) (alts, bool) {
	fn := staticFunc(&c.Call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgPq || fn.Signature().Recv() != nil {
		return alts{}, false
	}
	args := c.Call.Args
	switch fn.Name() {
	case "QuoteIdentifier":
		if len(args) != 1 {
			return alts{}, false
		}
		name, ok := constString(args[0])
		if !ok {
			return unknown("an identifier quoted at run time"), true
		}
		return single(constNode(`"` + strings.ReplaceAll(name, `"`, `""`) + `"`)), true
	case "CopyIn", "CopyInSchema":
		n := 1
		if fn.Name() == "CopyInSchema" {
			n = 2
		}
		if len(args) != n+1 {
			return alts{}, false
		}
		var parts []string
		for _, a := range args[:n] {
			s, ok := constString(a)
			if !ok {
				return unknown("the table of " + fn.Name() + " is not constant"), true
			}
			parts = append(parts, s)
		}
		table := strings.Join(parts, ".")
		cols := constStrings(args[n])
		if len(cols) == 0 {
			return single(constNode("INSERT INTO " + table + " DEFAULT VALUES")), true
		}
		marks := make([]string, len(cols))
		for i := range cols {
			marks[i] = "$" + strconv.Itoa(i+1)
		}
		return single(constNode("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")")), true
	}
	return alts{}, false
}
