package main

import (
	"bytes"
)

// stripBodies returns src with the insides of the bodies of the functions
// declared at the top level blanked: every byte but newlines turned into a
// space, so that every position outside the bodies stays where it was. A
// package the per-package cache restores is type-checked without its
// function bodies (declonly.go), but go/parser cannot skip them, and
// building their syntax was half of checking such a package on hatchet.
// It returns src itself when it cannot tell the bodies safely: a //line
// directive (which a blanked body would lose, moving what follows), or text
// that does not scan (an unterminated string or comment, unbalanced
// brackets). A syntax error inside a body is not seen once it is blanked:
// only packages whose entry says that they were checked whole before, on
// the same files, are stripped.
//
// It scans bytes, not tokens (go/scanner, allocating a string per token,
// cost a tenth of such a package's check): what it must tell is only
// strings, runes and comments, brackets, the words func, struct and
// interface, and where Go inserts a semicolon at the end of a line.
func stripBodies(src []byte) []byte {
	if bytes.Contains(src, []byte("line ")) && (bytes.Contains(src, []byte("//line ")) || bytes.Contains(src, []byte("/*line "))) {
		return src
	}
	s := bodyScanner{src: src}
	type span struct{ from, to int } // the inside of a body
	var bodies []span
	depth := 0     // of (, [ and { outside the bodies
	inSig := false // in a function declaration's signature
	for {
		tok, start := s.next()
		switch tok {
		case tokEOF:
			if s.bad || depth != 0 || len(bodies) == 0 {
				return src
			}
			out := bytes.Clone(src)
			for _, b := range bodies {
				for i := b.from; i < b.to; i++ {
					if out[i] != '\n' {
						out[i] = ' '
					}
				}
			}
			return out
		case tokSemi:
			if depth == 0 {
				inSig = false // a declaration without a body, or a func type
			}
		case tokFunc:
			// A declaration starts a statement of the top level: a
			// func anywhere else is a type or a literal.
			if depth == 0 && s.prevSemi {
				inSig = true
			}
		case tokOpen:
			// At depth 0 in a signature, a brace opens the body,
			// unless it opens a struct or interface type (a result).
			if src[start] == '{' && inSig && depth == 0 && !s.prevTypeWord {
				to, ok := s.closing()
				if !ok {
					return src
				}
				bodies = append(bodies, span{start + 1, to})
				inSig = false
				continue
			}
			depth++
		case tokClose:
			depth--
			if depth < 0 {
				return src
			}
		}
	}
}

// The tokens bodyScanner tells apart.
const (
	tokEOF   = iota
	tokSemi  // ; or a newline where Go inserts one
	tokFunc  // the word func
	tokOpen  // ( [ {
	tokClose // ) ] }
	tokOther // anything else
)

// bodyScanner reads Go source for stripBodies.
type bodyScanner struct {
	src []byte
	off int
	bad bool
	// semiOK says whether a newline after the last token ends a
	// statement (an identifier, a literal, ) ] } ++ --).
	semiOK bool
	// prevSemi says whether the token before the one just read was a
	// semicolon (or none); prevTypeWord whether it was struct or
	// interface.
	prevSemi, prevTypeWord bool
	lastSemi, lastTypeWord bool
}

// next returns the next token and its offset.
func (s *bodyScanner) next() (int, int) {
	tok, start := s.scan()
	s.prevSemi, s.prevTypeWord = s.lastSemi, s.lastTypeWord
	s.lastSemi, s.lastTypeWord = tok == tokSemi, false
	if tok == tokOther && start < len(s.src) {
		w := s.src[start:s.off]
		s.lastTypeWord = string(w) == "struct" || string(w) == "interface"
	}
	return tok, start
}

func (s *bodyScanner) scan() (int, int) {
	src := s.src
	for s.off < len(src) {
		c := src[s.off]
		start := s.off
		switch {
		case c == '\n':
			s.off++
			if s.semiOK {
				s.semiOK = false
				return tokSemi, start
			}
		case c == ' ' || c == '\t' || c == '\r':
			s.off++
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '/':
			// To the end of the line, which is still read as one.
			if i := bytes.IndexByte(src[s.off:], '\n'); i >= 0 {
				s.off += i
			} else {
				s.off = len(src)
			}
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '*':
			i := bytes.Index(src[s.off+2:], []byte("*/"))
			if i < 0 {
				s.bad = true
				return tokEOF, len(src)
			}
			comment := src[s.off : s.off+2+i+2]
			s.off += 2 + i + 2
			if s.semiOK && bytes.IndexByte(comment, '\n') >= 0 {
				s.semiOK = false
				return tokSemi, start
			}
		case c == ';':
			s.off++
			s.semiOK = false
			return tokSemi, start
		case c == '(' || c == '[' || c == '{':
			s.off++
			s.semiOK = false
			return tokOpen, start
		case c == ')' || c == ']' || c == '}':
			s.off++
			s.semiOK = true
			return tokClose, start
		case c == '"' || c == '\'' || c == '`':
			if !s.skipQuoted() {
				s.bad = true
				return tokEOF, len(src)
			}
			s.semiOK = true
			return tokOther, start
		case isIdentByte(c):
			for s.off < len(src) && isIdentByte(src[s.off]) {
				s.off++
			}
			s.semiOK = true
			if string(src[start:s.off]) == "func" {
				return tokFunc, start
			}
			return tokOther, start
		default:
			// An operator: ++ and -- end a statement, others do not.
			s.off++
			s.semiOK = (c == '+' || c == '-') && s.off < len(src) && src[s.off] == c
			if s.semiOK {
				s.off++
			}
			return tokOther, start
		}
	}
	return tokEOF, len(src)
}

// skipQuoted skips the string or rune literal at s.off.
func (s *bodyScanner) skipQuoted() bool {
	src := s.src
	q := src[s.off]
	s.off++
	if q == '`' {
		i := bytes.IndexByte(src[s.off:], '`')
		if i < 0 {
			return false
		}
		s.off += i + 1
		return true
	}
	for s.off < len(src) {
		switch src[s.off] {
		case '\\':
			s.off += 2
		case '\n':
			return false
		case q:
			s.off++
			return true
		default:
			s.off++
		}
	}
	return false
}

// closing skips to the brace that closes the one just read and returns
// its offset.
func (s *bodyScanner) closing() (int, bool) {
	n := 1
	for {
		tok, start := s.scan()
		switch {
		case tok == tokEOF:
			return 0, false
		case tok == tokOpen && s.src[start] == '{':
			n++
		case tok == tokClose && s.src[start] == '}':
			n--
			if n == 0 {
				s.lastSemi, s.lastTypeWord = false, false
				return start, true
			}
		}
	}
}
