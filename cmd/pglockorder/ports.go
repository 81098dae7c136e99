package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
)

// A package can run SQL without importing anything that does: a service
// that calls a Store interface it declares, whose Postgres implementation
// main wires in. Its source has to be analysed for the whole program to be
// seen, but which interfaces it calls, and who implements them, is known
// only from types, which the driver reads from source only for the
// packages it analyses. widen decides from the text: a root that calls a
// method by a name that a package reaching SQL declares is analysed too,
// and so on to a fixpoint. It errs on the side of yes (a name is not a
// type); the analyzer resolves the calls exactly.

// methodCall matches a call of a method (or a function of a package),
// selector and name.
var methodCall = regexp.MustCompile(`\.([\p{L}_][\p{L}\p{N}_]*)\s*\(`)

// commonMethods are methods of the standard library's interfaces that many
// types declare and many packages call, and that never run SQL in a
// program that is not broken: a package that calls only these is not worth
// parsing.
var commonMethods = map[string]bool{
	"String": true, "Error": true, "Unwrap": true, "Is": true, "As": true, "Format": true, "GoString": true,
	"Read": true, "Write": true, "Close": true, "ReadFrom": true, "WriteTo": true, "Seek": true,
	"Len": true, "Less": true, "Swap": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true,
	"MarshalBinary": true, "UnmarshalBinary": true, "Scan": true, "Value": true,
	"ServeHTTP": true, "Deadline": true, "Done": true, "Err": true,
	"Lock": true, "Unlock": true, "RLock": true, "RUnlock": true,
}

// widen marks as reaching SQL the roots that call, by name, a method that a
// reaching root declares, and their importers, until nothing changes.
func (c *checker) widen(roots []*packages.Package) {
	for _, p := range roots {
		c.reaches(p)
	}
	declared := map[*packages.Package]bool{}
	names := map[string]bool{}
	for {
		for _, p := range roots {
			if c.reach[p] && !declared[p] {
				declared[p] = true
				for _, n := range declaredMethods(p) {
					if !commonMethods[n] {
						names[n] = true
					}
				}
			}
		}
		changed := false
		for _, p := range roots {
			if c.reach[p] {
				continue
			}
			for n := range c.calls(p) {
				if names[n] {
					c.reach[p] = true
					changed = true
					break
				}
			}
		}
		if !changed {
			return
		}
		// Importers of the newly marked packages reach SQL too: forget
		// every "no" and ask again (every "yes" stays).
		for p, r := range c.reach {
			if !r {
				delete(c.reach, p)
			}
		}
		for _, p := range roots {
			c.reaches(p)
		}
	}
}

// declaredMethods returns the names of the methods p's source declares.
// Unreadable files are skipped: the type checker reports them.
func declaredMethods(p *packages.Package) []string {
	var out []string
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		out = appendMethodDecls(out, src)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appendMethodDecls appends the names of the methods src declares, as
// methodDecl finds them, without a regular expression: on hatchet the
// expression took a third of a second per run, for every analysed package.
// TestMethodDecls and FuzzMethodDecls check that both find the same.
func appendMethodDecls(out []string, src []byte) []string {
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }
	for i := 0; i < len(src); {
		// At the start of a line.
		if j, name := methodDeclAt(src, i, isSpace); j > i {
			out = append(out, name)
			i = j
			if i > 0 && src[i-1] == '\n' {
				continue
			}
		}
		k := bytes.IndexByte(src[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return out
}

// methodDeclAt matches that expression at the line start i: the end of the match
// and the method's name, or i when there is none.
func methodDeclAt(src []byte, i int, isSpace func(byte) bool) (int, string) {
	if !bytes.HasPrefix(src[i:], []byte("func")) {
		return i, ""
	}
	j := i + len("func")
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	if j >= len(src) || src[j] != '(' {
		return i, ""
	}
	k := bytes.IndexByte(src[j+1:], ')')
	if k < 0 {
		return i, ""
	}
	j += 1 + k + 1
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	start := j
	for j < len(src) {
		r, size := utf8.DecodeRune(src[j:])
		if r != '_' && !unicode.IsLetter(r) && (j == start || !unicode.IsNumber(r)) {
			break
		}
		j += size
	}
	if j == start {
		return i, ""
	}
	name := string(src[start:j])
	for j < len(src) && isSpace(src[j]) {
		j++
	}
	if j >= len(src) || (src[j] != '(' && src[j] != '[') {
		return i, ""
	}
	return j + 1, name
}

// calls returns the names p's source calls as a selector's method.
func (c *checker) calls(p *packages.Package) map[string]bool {
	if s, ok := c.callsOf[p]; ok {
		return s
	}
	s := map[string]bool{}
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if !bytes.Contains(src, []byte(".")) {
			continue
		}
		for _, m := range methodCall.FindAllSubmatch(src, -1) {
			s[string(m[1])] = true
		}
	}
	if c.callsOf == nil {
		c.callsOf = map[*packages.Package]map[string]bool{}
	}
	c.callsOf[p] = s
	return s
}
