package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The analysis packages are kept in rooms a newcomer can read: no
// non-test file over maxFileLines lines, no function over maxFuncLines
// (issue 19, item 5). The limits hold for every package below analysis/.
const (
	maxFileLines = 500
	maxFuncLines = 100
)

// TestRoomSizes fails on a non-test Go file below analysis/ that is longer
// than maxFileLines, or that holds a function longer than maxFuncLines.
func TestRoomSizes(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("analysis/%s: %d lines, more than %d: split it by concern", path, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("analysis/%s: func %s is %d lines, more than %d", path, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d Go files found below analysis/: the walk did not start where it should", files)
	}
}
