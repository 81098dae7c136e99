package main

import (
	"bytes"
	"go/scanner"
	"go/token"
)

// stripBodies returns src with the insides of the bodies of the functions
// declared at the top level blanked:
// every byte but newlines turned into a space, so that every position
// outside the bodies stays where it was. A package the per-package cache
// restores is type-checked without its function bodies (declonly.go), but
// go/parser cannot skip them, and building their syntax was half of
// checking such a package on hatchet. It returns src itself when it cannot
// tell the bodies safely: a //line directive (which a blanked body would
// lose, moving what follows) or a scanning error. A syntax error inside a
// body is not seen once it is blanked: only packages whose entry says that
// they were checked whole before, on the same files, are stripped.
func stripBodies(src []byte) []byte {
	if bytes.Contains(src, []byte("line ")) && (bytes.Contains(src, []byte("//line ")) || bytes.Contains(src, []byte("/*line "))) {
		return src
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, 0)
	type span struct{ from, to int } // the inside of a body
	var bodies []span
	depth := 0     // of (, [ and { outside the bodies
	inSig := false // in a function declaration's signature
	prev := token.ILLEGAL
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.FUNC:
			// A declaration starts a line of the top level: a
			// func anywhere else is a type or a literal.
			if depth == 0 && (prev == token.SEMICOLON || prev == token.ILLEGAL) {
				inSig = true
			}
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK:
			depth--
		case token.LBRACE:
			// At depth 0 in a signature, a brace opens the body,
			// unless it opens a struct or interface type (a result).
			if inSig && depth == 0 && prev != token.STRUCT && prev != token.INTERFACE {
				from := file.Offset(pos) + 1
				to, ok := closingBrace(&s, file)
				if !ok {
					return src
				}
				bodies = append(bodies, span{from, to})
				inSig = false
				prev = token.RBRACE
				continue
			}
			depth++
		case token.RBRACE:
			depth--
		case token.SEMICOLON:
			if depth == 0 {
				inSig = false // a declaration without a body, or a func type
			}
		}
		if depth < 0 {
			return src
		}
		prev = tok
	}
	if bad || len(bodies) == 0 {
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
}

// closingBrace scans to the brace that closes the one just read and
// returns its offset.
func closingBrace(s *scanner.Scanner, file *token.File) (int, bool) {
	n := 1
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, false
		case token.LBRACE:
			n++
		case token.RBRACE:
			n--
			if n == 0 {
				return file.Offset(pos), true
			}
		}
	}
}
