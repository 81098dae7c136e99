package sqlsite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"sync"
)

// sourceFiles caches the files parsed by sourceReturn, by name.
var sourceFiles sync.Map

type parsedFile struct {
	fset *token.FileSet
	file *ast.File
}

// sourceReturn returns the string literal that the function declared at
// pos returns, reading its source file: for a model's TableName method
// declared in another package, whose SSA has no body in this package's
// program. It reports false unless the body is a single return of one
// string literal.
func sourceReturn(pos token.Position) (string, bool) {
	if pos.Filename == "" {
		return "", false
	}
	v, ok := sourceFiles.Load(pos.Filename)
	if !ok {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, pos.Filename, nil, parser.SkipObjectResolution)
		if err != nil {
			f = nil
		}
		v, _ = sourceFiles.LoadOrStore(pos.Filename, parsedFile{fset, f})
	}
	pf := v.(parsedFile)
	if pf.file == nil {
		return "", false
	}
	for _, d := range pf.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || pf.fset.Position(fd.Name.Pos()).Line != pos.Line || len(fd.Body.List) != 1 {
			continue
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return "", false
		}
		lit, ok := ret.Results[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil
	}
	return "", false
}
