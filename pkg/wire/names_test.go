package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoNameComparisons keeps what differs between the APIs where it is
// said once, in this package and in each provider's: no other code
// compares a value with a shape's name written out ("anthropic" ==, case
// "responses":), which a new API would have to find and edit one by one.
// The fake servers of the tests and the benchmarks of the SDKs are left
// out, and so are tests.
func TestNoNameComparisons(t *testing.T) {
	names := map[string]bool{}
	for _, s := range Shapes {
		names[strconv.Quote(string(s))] = true
	}
	isName := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		return ok && lit.Kind == token.STRING && names[lit.Value]
	}
	root := filepath.Join("..", "..")
	// The fake servers and the testscript commands that start them
	// (`fakeapi openai script.json`) are test code: their names are the
	// words of a script, not a choice between APIs.
	skip := []string{"pkg/wire", "pkg/provider", "internal/fakeapi", "internal/scripttest", "bench"}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if slices.Contains(skip, rel) || rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isName(n.X) || isName(n.Y)) {
					t.Errorf("%s: compares with a shape's name; say what differs in pkg/wire or the dialect", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isName(e) {
						t.Errorf("%s: a case of a shape's name; say what differs in pkg/wire or the dialect", fset.Position(e.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files: is the tree where the test looks for it?", files)
	}
}
