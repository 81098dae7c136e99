package lockseq

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/pglockorder/pglockorder/internal/sqlsite"
)

// ctxTx is the pseudo-field of a context.Context that stands for the
// transaction stored in it: a helper stores it with context.WithValue, and
// another fetches it with ctx.Value(key).(pgx.Tx). Following it like a
// struct field lets a transaction opened by InTx(ctx, func(ctx) error)
// reach the statements its callback's callees run on the transaction they
// find in the context. The key is not compared: a program is taken to keep
// one transaction in its contexts.
const ctxTx = "ctx$tx"

// isContextType reports whether t is context.Context.
func isContextType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// ctxPath reports whether path starts at a context's transaction.
func ctxPath(path []string) bool { return len(path) > 0 && path[0] == ctxTx }

// ctxCall resolves a call that stores a transaction in a context or
// fetches it from one; it reports false for any other call.
func (fa *fnAnalysis) ctxCall(c *ssa.Call, path []string, depth int) (Handle, bool) {
	if h, ok := fa.requestCall(c, path, depth); ok {
		return h, true
	}
	if c.Call.IsInvoke() {
		// ctx.Value(key): what the context carries.
		if c.Call.Method.Name() == "Value" && isContextType(c.Call.Value.Type()) {
			return fa.resolve(c.Call.Value, prepend([]string{ctxTx}, path), depth+1), true
		}
		return Handle{}, false
	}
	if !ctxPath(path) {
		return Handle{}, false
	}
	callee := c.Call.StaticCallee()
	if callee == nil || callee.Pkg == nil && callee.Object() == nil {
		return Handle{}, false
	}
	obj, _ := callee.Object().(*types.Func)
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "context" {
		return Handle{}, false
	}
	args := c.Call.Args
	switch {
	case obj.Name() == "WithValue" && len(args) == 3:
		// The stored value when it is a handle, else what the parent
		// context carries.
		val := args[2]
		switch x := val.(type) {
		case *ssa.MakeInterface:
			val = x.X
		case *ssa.ChangeInterface: // pgx.Tx to any
			val = x.X
		}
		if fa.a.env.Rules.KindOf(val.Type()) != sqlsite.NotHandle {
			return fa.resolve(val, path[1:], depth+1), true
		}
		return fa.resolve(args[0], path, depth+1), true
	case len(args) > 0 && isContextType(args[0].Type()):
		// WithCancel, WithTimeout, WithoutCancel, ...: the values of
		// the parent.
		if c.Call.Signature().Results().Len() > 0 {
			return fa.resolve(args[0], path, depth+1), true
		}
	}
	return Handle{}, false
}

// ctxPassThrough reports whether a flow at path p of a context is only
// some context's own transaction passed on: a function that returns the
// context it was given (or one derived from it) returns no transaction of
// its own, and such flows would be in the summary of every function that
// returns a context, so they are left out of returns. A callback invoked
// with the caller's ctx (retry(ctx, fn)) keeps the flow: the transaction
// the caller's context carries is the one the callback's statements run
// on.
func ctxPassThrough(p []string, h Handle) bool {
	return ctxPath(p) && strings.HasSuffix(string(h.Ref), "."+ctxTx)
}

// requestCall resolves the calls that put a context in an *http.Request or
// take it out: an HTTP middleware stores the request's transaction in the
// request's context (next(w, r.WithContext(ctx))), and the handler takes it
// from there (r.Context()). The request keeps its context in its field ctx,
// so the transaction is at the request's path "ctx" + ctxTx (see
// handleFields).
func (fa *fnAnalysis) requestCall(c *ssa.Call, path []string, depth int) (Handle, bool) {
	callee := c.Call.StaticCallee()
	if callee == nil {
		return Handle{}, false
	}
	obj, _ := callee.Object().(*types.Func)
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "net/http" {
		return Handle{}, false
	}
	recv := obj.Signature().Recv()
	args := c.Call.Args
	if recv == nil || len(args) == 0 || !isRequestType(recv.Type()) {
		return Handle{}, false
	}
	switch obj.Name() {
	case "Context":
		if ctxPath(path) {
			return fa.resolve(args[0], prepend([]string{requestCtx}, path), depth+1), true
		}
	case "WithContext", "Clone":
		// A copy of the request that carries the context given.
		if len(args) == 2 && len(path) > 1 && path[0] == requestCtx && ctxPath(path[1:]) {
			return fa.resolve(args[1], path[1:], depth+1), true
		}
	}
	return Handle{}, false
}

// requestCtx is the field of net/http.Request that holds its context.
const requestCtx = "ctx"

// isRequestType reports whether t is *net/http.Request.
func isRequestType(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), "net/http", "Request")
}

// isNamed reports whether t is the named type pkg.name.
func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// isServeHTTP reports whether c calls ServeHTTP through net/http.Handler.
func isServeHTTP(c *ssa.CallCommon) bool {
	return c.IsInvoke() && c.Method.Name() == "ServeHTTP" && isNamed(c.Value.Type(), "net/http", "Handler")
}
