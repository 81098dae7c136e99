package sqlsite

import (
	"go/constant"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// builderWrites lists the methods of strings.Builder and bytes.Buffer that
// append their argument.
var builderWrites = map[string]bool{"WriteString": true, "WriteByte": true, "WriteRune": true, "Write": true}

// builderReads lists the methods that neither change nor reveal the
// contents (or reveal them, as the resolved String and Bytes do).
var builderReads = map[string]bool{"String": true, "Bytes": true, "Len": true, "Cap": true, "Grow": true}

// write is one append to a builder: the instruction and what it appends.
type write struct {
	instr ssa.Instruction
	text  func() alts
}

// builder resolves the contents of a strings.Builder or bytes.Buffer local
// to the function when it is read at the call at: the writes before it, in
// order. Every write must run before the read on every path to it (not in
// a branch or a loop), and the builder must not be passed elsewhere.
func (r *resolver) builder(recv ssa.Value, at ssa.Instruction, depth int) alts {
	alloc, ok := recv.(*ssa.Alloc)
	if !ok {
		return unknown("a " + builderType(recv) + " that is not a local variable")
	}
	var writes []write
	for _, ref := range *alloc.Referrers() {
		switch u := ref.(type) {
		case *ssa.DebugRef:
			continue
		case *ssa.Call:
			callee := u.Call.StaticCallee()
			if callee == nil || callee.Signature.Recv() == nil || len(u.Call.Args) == 0 || u.Call.Args[0] != alloc {
				return unknown("a " + builderType(recv) + " passed to another function")
			}
			switch name := callee.Name(); {
			case builderReads[name]:
				continue
			case builderWrites[name] && len(u.Call.Args) == 2:
				arg := u.Call.Args[1]
				writes = append(writes, write{u, func() alts { return r.written(name, arg, depth) }})
			default:
				return unknown("a " + builderType(recv) + " changed by " + name)
			}
		case *ssa.MakeInterface:
			// fmt.Fprintf(&b, format, args...): the only use of the
			// io.Writer.
			for _, ref2 := range *u.Referrers() {
				c, ok := ref2.(*ssa.Call)
				callee := (*ssa.Function)(nil)
				if ok {
					callee = c.Call.StaticCallee()
				}
				if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != "fmt" || callee.Name() != "Fprintf" || len(c.Call.Args) != 3 || c.Call.Args[0] != u {
					if _, debug := ref2.(*ssa.DebugRef); debug {
						continue
					}
					return unknown("a " + builderType(recv) + " written by a function other than fmt.Fprintf")
				}
				args := c.Call.Args
				writes = append(writes, write{c, func() alts { return r.sprintf(args[1:], depth) }})
			}
		default:
			return unknown("a " + builderType(recv) + " used other than through its methods")
		}
	}
	// Writes after the read do not count; every other one must run
	// before it on every path.
	var before []write
	for _, w := range writes {
		switch {
		case precedes(at, w.instr):
			continue
		case !precedes(w.instr, at):
			return unknown("a " + builderType(recv) + " written in a branch or a loop")
		}
		before = append(before, w)
	}
	slices.SortFunc(before, func(a, b write) int {
		if precedes(a.instr, b.instr) {
			return -1
		}
		return 1
	})
	out := single(constNode(""))
	for _, w := range before {
		out = concat(out, w.text())
	}
	return out
}

// written resolves what one write appends.
func (r *resolver) written(method string, arg ssa.Value, depth int) alts {
	switch method {
	case "WriteString":
		return r.value(arg, depth+1)
	case "WriteByte", "WriteRune":
		if c, ok := arg.(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Int {
			if n, exact := constant.Int64Val(c.Value); exact {
				if method == "WriteByte" {
					return single(constNode(string([]byte{byte(n)})))
				}
				return single(constNode(string(rune(n))))
			}
		}
		return unknown("a character written at run time")
	case "Write":
		if cv, ok := arg.(*ssa.Convert); ok && isString(cv.X.Type()) {
			return r.value(cv.X, depth+1)
		}
		return unknown("bytes written at run time")
	}
	return unknown("a write of " + method)
}

// precedes reports whether instruction a runs before b on every path to b:
// earlier in the same block, or in a block that dominates b's.
func precedes(a, b ssa.Instruction) bool {
	ab, bb := a.Block(), b.Block()
	if ab == nil || bb == nil {
		return false
	}
	if ab != bb {
		return ab.Dominates(bb)
	}
	for _, instr := range ab.Instrs {
		switch instr {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

// builderType names the builder's type for reasons.
func builderType(v ssa.Value) string {
	if _, name, ok := namedPath(v.Type()); ok && name == "Buffer" {
		return "bytes.Buffer"
	}
	return "strings.Builder"
}
