package lockseq

import "testing"

func TestCountSkips(t *testing.T) {
	un := func(posn string) Skip { return Skip{Reason: SkipUnparsable, Posn: posn, Detail: "syntax error"} }
	rt := func(posn string) Skip { return Skip{Reason: SkipRuntime, Posn: posn} }
	for _, tc := range []struct {
		name  string
		skips []Skip
		want  string
	}{
		{"none", nil, ""},
		{"one unparsable", []Skip{un("a.go:1:2")}, "1 SQL string could not be parsed"},
		{"a package and its test variant", []Skip{un("a.go:1:2"), un("a.go:1:2"), rt("a.go:3:4")},
			"1 SQL string could not be parsed and 1 query text is built at run time"},
		{"several", []Skip{rt("b.go:1:1"), un("a.go:1:2"), un("a.go:5:2"), rt("a.go:3:4"), un("c.go:1:1")},
			"3 SQL strings could not be parsed and 2 query texts are built at run time"},
		{"a reason without a description", []Skip{{Reason: "exotic", Posn: "m.go:1:1"}, un("a.go:1:2")},
			"1 SQL string could not be parsed and 1 SQL skipped (exotic)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CountSkips(tc.skips); got != tc.want {
				t.Errorf("CountSkips = %q, want %q", got, tc.want)
			}
		})
	}
}
