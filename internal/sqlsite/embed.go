package sqlsite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// Embedded files are read with os.ReadFile, not the analysis pass's
// ReadFile: go vet (unitchecker) and analysistest only let a pass read the
// package's Go files and its NonGoFiles, and the go command does not count
// embedded files among those. Reading them from disk works the same in all
// three drivers. The go command's vet action keys on them (through the
// compile action, which hashes EmbedFiles), the pglockorder command's result
// cache too.

// embedCache maps "file:line" of a variable declaration to its *embedSet,
// so that a directive is read once however often the query is resolved.
var embedCache sync.Map

// fileCache maps an embedded file's path to its *fileText.
var fileCache sync.Map

type fileText struct {
	text string
	ok   bool
}

// embedSet is what a //go:embed directive names: the files, by their slash
// names relative to the package directory dir.
type embedSet struct {
	dir   string
	files []string
	ok    bool
}

// embedText returns the text of the file a string variable is initialised
// with by a //go:embed directive (//go:embed lock_job.sql above var lockJob
// string): the compiler fills such a variable, so no store to it appears
// in the package's init function. A string or []byte variable embeds
// exactly one file.
func embedText(g *ssa.Global) (string, bool) {
	obj, ok := g.Object().(*types.Var)
	if !ok || !isString(obj.Type()) && !isBytes(obj.Type()) {
		return "", false
	}
	set := embedFiles(g)
	if !set.ok || len(set.files) != 1 {
		return "", false
	}
	return set.read(set.files[0])
}

// embedFiles returns the files a //go:embed directive above the package
// variable g names.
func embedFiles(g *ssa.Global) embedSet {
	if g.Pkg == nil || g.Pkg.Prog == nil || g.Pkg.Prog.Fset == nil || g.Object() == nil {
		return embedSet{}
	}
	pos := g.Pkg.Prog.Fset.Position(g.Object().Pos())
	if pos.Filename == "" || pos.Line < 2 {
		return embedSet{}
	}
	key := fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
	if e, ok := embedCache.Load(key); ok {
		return *e.(*embedSet)
	}
	set := readDirective(pos.Filename, pos.Line)
	embedCache.Store(key, &set)
	return set
}

// readEmbed reads the file named by the //go:embed directive in the
// comment lines just above line of the Go file, when it names one file.
func readEmbed(goFile string, line int) (string, bool) {
	set := readDirective(goFile, line)
	if !set.ok || len(set.files) != 1 {
		return "", false
	}
	return set.read(set.files[0])
}

// readDirective reads the //go:embed directives in the comment lines just
// above line of the Go file and lists the files they embed.
func readDirective(goFile string, line int) embedSet {
	src, err := os.ReadFile(goFile)
	if err != nil {
		return embedSet{}
	}
	lines := strings.Split(string(src), "\n")
	if line-1 > len(lines) {
		return embedSet{}
	}
	var pats []string
	for i := line - 2; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "//") {
			break
		}
		rest, ok := strings.CutPrefix(l, "//go:embed ")
		if !ok {
			continue
		}
		p, ok := embedPatterns(rest)
		if !ok {
			return embedSet{}
		}
		pats = append(pats, p...)
	}
	if len(pats) == 0 {
		return embedSet{}
	}
	dir := filepath.Dir(goFile)
	files, ok := matchEmbed(dir, pats)
	return embedSet{dir: dir, files: files, ok: ok}
}

// embedPatterns splits the patterns of a //go:embed line: space-separated,
// each may be quoted as a Go string ("a b.sql" or `a b.sql`).
func embedPatterns(s string) ([]string, bool) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		switch s[0] {
		case '`':
			end := strings.IndexByte(s[1:], '`')
			if end < 0 {
				return nil, false
			}
			out = append(out, s[1:1+end])
			s = s[end+2:]
		case '"':
			i := 1
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++ // the escaped character
				}
				i++
			}
			if i >= len(s) {
				return nil, false
			}
			p, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return nil, false
			}
			out = append(out, p)
			s = s[i+1:]
		default:
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			out = append(out, s[:end])
			s = s[end:]
		}
	}
	return out, len(out) > 0
}

// matchEmbed lists the files the patterns embed from dir, as the go command
// does: a pattern is a path.Match glob; a directory matched embeds its files
// recursively, except those whose names begin with '.' or '_' (unless the
// pattern starts with "all:"). It fails on a pattern that matches nothing
// (the go command refuses to build then) or past maxFiles.
func matchEmbed(dir string, pats []string) ([]string, bool) {
	var out []string
	for _, p := range pats {
		all := false
		if rest, ok := strings.CutPrefix(p, "all:"); ok {
			p, all = rest, true
		}
		if p == "" || path.IsAbs(p) || strings.Contains(p, "..") || strings.ContainsAny(p, `\`) {
			return nil, false
		}
		matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || len(matches) == 0 {
			return nil, false
		}
		for _, m := range matches {
			err := filepath.WalkDir(m, func(name string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				base := d.Name()
				if name != m && !all && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.IsDir() || !d.Type().IsRegular() {
					return nil
				}
				rel, err := filepath.Rel(dir, name)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(rel))
				if len(out) > maxFiles {
					return fs.SkipAll
				}
				return nil
			})
			if err != nil || len(out) > maxFiles {
				return nil, false
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// read returns the text of the embedded file name (a slash path relative to
// the package), which the set must contain.
func (s embedSet) read(name string) (string, bool) {
	if _, found := slices.BinarySearch(s.files, name); !found {
		return "", false
	}
	file := filepath.Join(s.dir, filepath.FromSlash(name))
	if f, ok := fileCache.Load(file); ok {
		f := f.(*fileText)
		return f.text, f.ok
	}
	var f fileText
	if info, err := os.Stat(file); err == nil && info.Size() <= maxFileSize {
		if data, err := os.ReadFile(file); err == nil {
			f = fileText{text: string(data), ok: true}
		}
	}
	fileCache.Store(file, &f)
	return f.text, f.ok
}

// readFile resolves the text of (embed.FS).ReadFile and fs.ReadFile on an
// embed.FS package variable: the file the name names, or, where the name is
// built from the function's parameters, the candidate files its callers
// choose from.
func (r *resolver) readFile(c *ssa.Call, depth int) (alts, bool) {
	callee := c.Call.StaticCallee()
	if callee == nil || callee.Pkg == nil || len(c.Call.Args) != 2 || callee.Name() != "ReadFile" {
		return alts{}, false
	}
	switch path := callee.Pkg.Pkg.Path(); {
	case path == "embed" && callee.Signature.Recv() != nil:
	case path == "io/fs" && callee.Signature.Recv() == nil:
	default:
		return alts{}, false
	}
	fsys := stripConversions(c.Call.Args[0])
	load, ok := fsys.(*ssa.UnOp)
	var g *ssa.Global
	if ok {
		g, _ = load.X.(*ssa.Global)
	}
	if g == nil {
		return unknown("a file of a file system other than an embed.FS package variable"), true
	}
	set := embedFiles(g)
	if !set.ok {
		return unknown("a file of embed.FS " + g.Name() + ", whose //go:embed directive was not read"), true
	}
	names := r.value(c.Call.Args[1], depth+1)
	out := alts{unknown: names.unknown, why: names.why}
	if names.unknown {
		out.why = "the file name is not constant: " + names.why
	}
	for _, n := range names.nodes {
		if n.isString() {
			text, ok := set.read(n.Text)
			if !ok {
				out.unknown, out.why = true, fmt.Sprintf("no embedded file %q in %s", n.Text, g.Name())
				continue
			}
			out.nodes = append(out.nodes, constNode(text))
			continue
		}
		re := filePattern(n)
		var files []File // sorted, as set.files is
		size := 0
		for _, f := range set.files {
			if re.MatchString(f) {
				if text, ok := set.read(f); ok {
					files = append(files, File{Name: f, Text: text})
					size += len(text)
				}
			}
		}
		if size > maxFilesSize {
			out.unknown, out.why = true, fmt.Sprintf("one of %d embedded files of %s (%d bytes in all, more than the analysis carries to callers)", len(files), g.Name(), size)
			continue
		}
		if len(files) == 0 {
			out.unknown, out.why = true, fmt.Sprintf("no embedded file of %s matches %s", g.Name(), n)
			continue
		}
		out.nodes = append(out.nodes, Node{Op: OpFile, Args: []Node{n}, Files: files})
	}
	return out, true
}

// bytes resolves a byte slice converted to a string: an embedded file read
// (ReadFile's result, a //go:embed []byte variable) or a bytes.Buffer's
// contents.
func (r *resolver) bytes(v ssa.Value, depth int) alts {
	switch x := v.(type) {
	case *ssa.Extract:
		if c, ok := x.Tuple.(*ssa.Call); ok && x.Index == 0 {
			if t, ok := r.readFile(c, depth); ok {
				return t
			}
		}
	case *ssa.UnOp:
		if g, ok := x.X.(*ssa.Global); ok && x.Op == token.MUL {
			if text, ok := embedText(g); ok {
				return single(constNode(text))
			}
		}
	case *ssa.Call:
		if callee := x.Call.StaticCallee(); callee != nil && callee.Name() == "Bytes" && len(x.Call.Args) == 1 && callee.Signature.Recv() != nil {
			if pkg, name, ok := namedPath(callee.Signature.Recv().Type()); ok && pkg == "bytes" && name == "Buffer" {
				return r.builder(x.Call.Args[0], x, depth)
			}
		}
	}
	return unknown("a byte slice built at run time (" + describe(v) + ")")
}

// stripConversions looks through interface boxing and conversions.
func stripConversions(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeInterface:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		default:
			return v
		}
	}
}

// mapLoader is a package map of query texts filled from an embed.FS, one
// entry per file (the dotsql-like loader: for each file of sql/, m[name
// without ".sql"] = its text).
type mapLoader struct {
	fsys string   // the embed.FS variable, for messages
	set  embedSet // its files
	// ext is the suffix the key drops from the file's base name: "" for
	// none, "*" for whatever extension it has (path.Ext).
	ext string
}

// key is the map key the loader files name under.
func (l mapLoader) key(name string) string {
	base := path.Base(name)
	if l.ext == "*" {
		return strings.TrimSuffix(base, path.Ext(base))
	}
	return strings.TrimSuffix(base, l.ext)
}

// lookup resolves m[key] on a package-level map[string]string that a
// loader fills from an embed.FS: the text of the file the key names, or,
// where the key is a parameter of the function, the candidate files its
// callers choose from (as for ReadFile with a name built from one).
func (r *resolver) lookup(l *ssa.Lookup, depth int) alts {
	load, ok := l.X.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return unknown("a map element")
	}
	g, ok := load.X.(*ssa.Global)
	if !ok {
		return unknown("a map element")
	}
	updates := mapUpdates(g)
	loaders := mapLoaders(updates)
	consts := constEntries(updates)
	if len(loaders) == 0 && len(consts) == 0 {
		return unknown("an element of map " + g.Name() + ", which is filled neither with constants nor from an embed.FS")
	}
	keys := r.value(l.Index, depth+1)
	out := alts{unknown: keys.unknown, why: keys.why}
	if keys.unknown {
		out.why = "the map key is not constant: " + keys.why
	}
	for _, n := range keys.nodes {
		if len(consts) > 0 {
			if n.isString() {
				i, found := slices.BinarySearchFunc(consts, n.Text, func(f File, name string) int { return strings.Compare(f.Name, name) })
				if found {
					out.nodes = append(out.nodes, constNode(consts[i].Text))
					continue
				}
				if len(loaders) == 0 {
					out.unknown, out.why = true, fmt.Sprintf("no entry %q in map %s", n.Text, g.Name())
					continue
				}
			} else {
				size := 0
				for _, f := range consts {
					size += len(f.Text)
				}
				if size > maxFilesSize {
					out.unknown, out.why = true, fmt.Sprintf("an entry of map %s (%d bytes in all, more than the analysis carries to callers)", g.Name(), size)
				} else {
					out.nodes = append(out.nodes, Node{Op: OpFile, Args: []Node{n}, Files: consts})
				}
			}
		}
		for _, ld := range loaders {
			if n.isString() {
				found := false
				for _, f := range ld.set.files {
					if ld.key(f) == n.Text {
						if text, ok := ld.set.read(f); ok {
							out.nodes = append(out.nodes, constNode(text))
							found = true
						}
					}
				}
				if !found {
					out.unknown, out.why = true, fmt.Sprintf("no file of embed.FS %s is loaded into %s under %q", ld.fsys, g.Name(), n.Text)
				}
				continue
			}
			// One file-name template per directory and extension: the
			// key stands for the base name without that extension.
			groups := map[[2]string][]File{}
			var order [][2]string
			size := 0
			for _, f := range ld.set.files {
				dir, base := path.Split(f)
				ext := ""
				if ld.ext == "*" {
					ext = path.Ext(base)
				} else if strings.HasSuffix(base, ld.ext) {
					ext = ld.ext
				}
				text, ok := ld.set.read(f)
				if !ok {
					continue
				}
				k := [2]string{dir, ext}
				if _, seen := groups[k]; !seen {
					order = append(order, k)
				}
				groups[k] = append(groups[k], File{Name: f, Text: text})
				size += len(text)
			}
			if size > maxFilesSize {
				out.unknown, out.why = true, fmt.Sprintf("one of the embedded files of %s loaded into %s (%d bytes in all, more than the analysis carries to callers)", ld.fsys, g.Name(), size)
				continue
			}
			for _, k := range order {
				name := concatNodes(constNode(k[0]), n, constNode(k[1]))
				out.nodes = append(out.nodes, Node{Op: OpFile, Args: []Node{name}, Files: groups[k]})
			}
		}
	}
	return out
}

// concatNodes concatenates nodes, leaving out empty constants.
func concatNodes(ns ...Node) Node {
	var args []Node
	for _, n := range ns {
		if n.isString() && n.Text == "" {
			continue
		}
		args = append(args, n)
	}
	if len(args) == 1 {
		return args[0]
	}
	return Node{Op: OpConcat, Args: args}
}

// mapUpdates returns the stores into the package map g made while the
// package initialises: into the map its initialiser builds (a literal, or
// the map a loader function of the package returns), or into g itself in
// an init function.
func mapUpdates(g *ssa.Global) []*ssa.MapUpdate {
	if g.Pkg == nil {
		return nil
	}
	if m, ok := types.Unalias(g.Type()).(*types.Pointer).Elem().Underlying().(*types.Map); !ok || !isString(m.Key()) || !isString(m.Elem()) && !isBytes(m.Elem()) {
		return nil
	}
	init := g.Pkg.Func("init")
	if init == nil {
		return nil
	}
	var updates []*ssa.MapUpdate
	addMap := func(v ssa.Value) {
		if mm, ok := v.(*ssa.MakeMap); ok {
			for _, ref := range *mm.Referrers() {
				if u, ok := ref.(*ssa.MapUpdate); ok && u.Map == mm {
					updates = append(updates, u)
				}
			}
		}
	}
	for _, fn := range initFuncs(g.Pkg, init) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch x := instr.(type) {
				case *ssa.Store:
					if x.Addr != g {
						continue
					}
					addMap(x.Val)
					// var m = load(): the map load returns.
					if c, ok := x.Val.(*ssa.Call); ok {
						if callee := c.Call.StaticCallee(); callee != nil && callee.Pkg == g.Pkg {
							for _, cb := range callee.Blocks {
								if ret, ok := cb.Instrs[len(cb.Instrs)-1].(*ssa.Return); ok && len(ret.Results) > 0 {
									addMap(ret.Results[0])
								}
							}
						}
					}
				case *ssa.MapUpdate:
					// func init() { m[key] = string(data) }
					if load, ok := x.Map.(*ssa.UnOp); ok && load.X == g {
						updates = append(updates, x)
					}
				}
			}
		}
	}
	return updates
}

// initFuncs returns the package initialiser and the package's init
// functions (init#1, ...), which it calls, with their closures.
func initFuncs(pkg *ssa.Package, init *ssa.Function) []*ssa.Function {
	fns := []*ssa.Function{init}
	for _, b := range init.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(*ssa.Call); ok {
				if f := c.Call.StaticCallee(); f != nil && f.Pkg == pkg && strings.HasPrefix(f.Name(), "init#") {
					fns = append(fns, f)
					fns = append(fns, f.AnonFuncs...)
				}
			}
		}
	}
	return fns
}

// mapLoaders finds how the package map g is filled from embedded files:
// updates m[key] = string(data), where data is read from an embed.FS
// package variable and key is a file's base name (fs.DirEntry's or
// fs.FileInfo's Name, path.Base), also without its extension
// (strings.TrimSuffix with a constant or with path.Ext of it).
func mapLoaders(updates []*ssa.MapUpdate) []mapLoader {
	var out []mapLoader
	for _, u := range updates {
		fsys, ok := embedRead(u.Value)
		if !ok {
			continue
		}
		ext, ok := loaderKey(u.Key)
		if !ok {
			continue
		}
		set := embedFiles(fsys)
		if !set.ok {
			continue
		}
		out = append(out, mapLoader{fsys: fsys.Name(), set: set, ext: ext})
	}
	return out
}

// constEntries returns the entries of constant keys and constant texts
// among the updates (a map literal of queries), sorted by key, as the
// candidates of an OpFile node.
func constEntries(updates []*ssa.MapUpdate) []File {
	var out []File
	for _, u := range updates {
		k, ok := constString(u.Key)
		if !ok {
			continue
		}
		if v, ok := constString(u.Value); ok {
			out = append(out, File{Name: k, Text: v})
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b File) bool { return a.Name == b.Name })
}

// embedRead returns the embed.FS package variable whose file v is the text
// of (string(data) or data, with data, _ := fsys.ReadFile(name)).
func embedRead(v ssa.Value) (*ssa.Global, bool) {
	if cv, ok := v.(*ssa.Convert); ok {
		v = cv.X
	}
	ex, ok := v.(*ssa.Extract)
	if !ok || ex.Index != 0 {
		return nil, false
	}
	c, ok := ex.Tuple.(*ssa.Call)
	if !ok {
		return nil, false
	}
	callee := c.Call.StaticCallee()
	if callee == nil || callee.Pkg == nil || callee.Name() != "ReadFile" || len(c.Call.Args) != 2 {
		return nil, false
	}
	switch p := callee.Pkg.Pkg.Path(); {
	case p == "embed" && callee.Signature.Recv() != nil:
	case p == "io/fs" && callee.Signature.Recv() == nil:
	default:
		return nil, false
	}
	load, ok := stripConversions(c.Call.Args[0]).(*ssa.UnOp)
	if !ok {
		return nil, false
	}
	g, ok := load.X.(*ssa.Global)
	return g, ok
}

// loaderKey tells how a loader's map key derives from a file's base name:
// the ext it drops ("" for none, "*" for path.Ext's), or false when the key
// is something else.
func loaderKey(key ssa.Value) (string, bool) {
	if c, ok := key.(*ssa.Call); ok {
		if callee := c.Call.StaticCallee(); callee != nil && callee.Pkg != nil && callee.Pkg.Pkg.Path() == "strings" && callee.Name() == "TrimSuffix" && len(c.Call.Args) == 2 {
			if !isBaseName(c.Call.Args[0]) {
				return "", false
			}
			if s, ok := constString(c.Call.Args[1]); ok {
				return s, true
			}
			if ec, ok := c.Call.Args[1].(*ssa.Call); ok {
				if f := ec.Call.StaticCallee(); f != nil && f.Pkg != nil && (f.Pkg.Pkg.Path() == "path" || f.Pkg.Pkg.Path() == "path/filepath") && f.Name() == "Ext" {
					return "*", true
				}
			}
			return "", false
		}
	}
	return "", isBaseName(key)
}

// isBaseName reports whether v is a file's base name: the Name of an
// fs.DirEntry or fs.FileInfo, or path.Base / filepath.Base of a path.
func isBaseName(v ssa.Value) bool {
	c, ok := v.(*ssa.Call)
	if !ok {
		return false
	}
	if c.Call.IsInvoke() {
		return c.Call.Method.Name() == "Name" && len(c.Call.Args) == 0
	}
	f := c.Call.StaticCallee()
	if f == nil || f.Pkg == nil {
		return false
	}
	switch f.Pkg.Pkg.Path() {
	case "path", "path/filepath":
		return f.Name() == "Base"
	}
	return false
}

// globalField resolves field i of a package-level struct variable (var
// queries = struct{ Lock string }{Lock: "SELECT ... FOR UPDATE"}) from the
// stores to it while the package initialises.
func (r *resolver) globalField(g *ssa.Global, field, depth int) alts {
	init := g.Pkg.Func("init")
	if init == nil {
		return unknown("field " + fieldName(g.Type(), field) + " of package variable " + g.Name())
	}
	var out alts
	found := false
	for _, fn := range initFuncs(g.Pkg, init) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok {
					continue
				}
				var vals []ssa.Value
				if fa, ok := st.Addr.(*ssa.FieldAddr); ok && fa.X == g && fa.Field == field {
					vals = append(vals, st.Val) // g.f = v
				}
				if st.Addr == g {
					vals = append(vals, literalField(st.Val, field)...) // g = T{f: v}
				}
				for _, v := range vals {
					// In init's terms: its parameters mean nothing here.
					top := r.top
					r.top = nil
					out = union(out, r.value(v, depth+1))
					r.top = top
					found = true
				}
			}
		}
	}
	if !found {
		return unknown("field " + fieldName(g.Type(), field) + " of package variable " + g.Name() + ", which is not initialised")
	}
	return out
}

// literalField returns the values stored into field i of the struct
// composite literal v loads (*t, with t a local the literal fills).
func literalField(v ssa.Value, field int) []ssa.Value {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return nil
	}
	alloc, ok := load.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	return allocField(alloc, field)
}

// sqlExtensions are the file name extensions of SQL text.
var sqlExtensions = []string{".sql", ".pgsql", ".psql"}

// IsSQLFile reports whether a file's name says it holds SQL text.
func IsSQLFile(name string) bool {
	return slices.Contains(sqlExtensions, strings.ToLower(filepath.Ext(name)))
}

// EmbedsSQL reports whether a package's files embed SQL files (a //go:embed
// directive that matches a .sql file). Such a package returns query text to
// its importers (a queries package that reads its statements from
// embedded files) although it imports no database API itself: it is
// analysed, so that the text reaches the callers that run it.
func EmbedsSQL(fset *token.FileSet, files []*ast.File) bool {
	for _, f := range files {
		dir := filepath.Dir(fset.Position(f.Pos()).Filename)
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				rest, ok := strings.CutPrefix(c.Text, "//go:embed ")
				if !ok {
					continue
				}
				pats, ok := embedPatterns(rest)
				if !ok {
					continue
				}
				matched, _ := matchEmbed(dir, pats)
				if slices.ContainsFunc(matched, IsSQLFile) {
					return true
				}
			}
		}
	}
	return false
}
