package analyzer

import "github.com/pglockorder/pglockorder/analyzer/sqlsite"

// ruleFlag is a flag whose value is a list of user-declared rules, kept by
// sqlsite.
type ruleFlag struct {
	set func(string) error
	get func() string
}

func (f ruleFlag) String() string {
	if f.get == nil {
		return ""
	}
	return f.get()
}

func (f ruleFlag) Set(s string) error { return f.set(s) }

func init() {
	Analyzer.Flags.Var(ruleFlag{sqlsite.SetSinks, sqlsite.Sinks}, "sinks",
		"comma-separated `import/path.Func:N` or import/path.Type.Method:N: calls that run the SQL text of argument N (from 0, receiver excluded) on their receiver, for functions the analysis cannot see into")
	Analyzer.Flags.Var(ruleFlag{sqlsite.SetTxRunners, sqlsite.TxRunners}, "txrunners",
		"comma-separated `import/path.Func:N` or import/path.Type.Method:N: calls that run the callback in argument N inside a transaction they open and end")
}
