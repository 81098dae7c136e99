package analyzer

import (
	"sync"

	"github.com/pglockorder/pglockorder/internal/lockseq"
	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// The user-declared rules are the -sinks and -txrunners flags: each flag
// holds its list, checked and sorted when set, and a pass gets the rules as
// a value (UserRules), which the lock analysis takes in its lockseq.Env.
var sinksSpec, runnersSpec string

// ruleFlag is a flag whose value is a list of user-declared rules.
type ruleFlag struct {
	spec    *string
	runners bool
}

func (f ruleFlag) String() string {
	if f.spec == nil {
		return ""
	}
	return *f.spec
}

// Set checks the list and keeps it in the canonical form (sorted).
func (f ruleFlag) Set(s string) error {
	sinks, runners := s, ""
	if f.runners {
		sinks, runners = "", s
	}
	r, err := sqlsite.NewRules(sinks, runners)
	if err != nil {
		return err
	}
	if f.runners {
		*f.spec = r.TxRunners()
	} else {
		*f.spec = r.Sinks()
	}
	return nil
}

func init() {
	Analyzer.Flags.Var(ruleFlag{spec: &sinksSpec}, "sinks",
		"comma-separated `import/path.Func:N` or import/path.Type.Method:N: calls that run the SQL text of argument N (from 0, receiver excluded) on their receiver, for functions the analysis cannot see into")
	Analyzer.Flags.Var(ruleFlag{spec: &runnersSpec, runners: true}, "txrunners",
		"comma-separated `import/path.Func:N` or import/path.Type.Method:N: calls that run the callback in argument N inside a transaction they open and end")
}

// rulesCache holds the rules made from the flags' lists, by their text: a
// cache, so that the passes of a run share one value (and its cache of the
// methods that implement declared interface methods).
var rulesCache sync.Map // [2]string -> *sqlsite.Rules

// UserRules returns the rules the -sinks and -txrunners flags declare, nil
// for none.
func UserRules() *sqlsite.Rules {
	key := [2]string{sinksSpec, runnersSpec}
	if key == [2]string{} {
		return nil
	}
	if r, ok := rulesCache.Load(key); ok {
		return r.(*sqlsite.Rules)
	}
	r, err := sqlsite.NewRules(key[0], key[1])
	if err != nil {
		return nil // checked when the flags were set
	}
	v, _ := rulesCache.LoadOrStore(key, r)
	return v.(*sqlsite.Rules)
}

// ForgetTypes empties every cache of the analyzer and its packages that is
// keyed by types objects: a driver that analyses a program in one process
// calls it when it drops the program's types (a planning pass's, or all of
// them once the analysis is over), so that no cache keeps them alive. It
// must not run while a pass does; the next pass fills the caches again.
func ForgetTypes() {
	decided.Clear()
	lockseq.ForgetTypes()
	sqlsite.ForgetTypes()
	rulesCache.Range(func(_, r any) bool {
		r.(*sqlsite.Rules).ForgetTypes()
		return true
	})
}
