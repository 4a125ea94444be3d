package answer_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyWhoPutsAnswerersTogether reads every non-test Go file of the
// module and fails where code outside this package and the session makes
// a chain of answerers or samplers itself (answer.Chain{…},
// answer.SamplerChain{…}, answer.Required{…}): the order of who answers is
// Who's alone, and a session declares sampling with
// session.Options.DeclareSampling, not with an empty chain.
func TestOnlyWhoPutsAnswerersTogether(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	allowed := map[string]bool{
		filepath.Join(root, "internal", "client", "answer"):  true,
		filepath.Join(root, "internal", "client", "session"): true,
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git", ".tools", "bin", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[filepath.Dir(path)] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "answer" {
				switch sel.Sel.Name {
				case "Chain", "SamplerChain", "Required":
					t.Errorf("%s: answer.%s{…} built outside answer.Who", fset.Position(lit.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
