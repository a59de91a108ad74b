package compile

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// tableFile reports whether rel is a file of the table of languages, which alone may tell
// languages apart.
func tableFile(rel string) bool {
	return strings.HasPrefix(rel, "internal/compile/") &&
		(filepath.Base(rel) == "languages.go" || strings.HasPrefix(filepath.Base(rel), "lang_"))
}

// languageSwitches returns where the Go source src (named name) tells
// languages apart: a switch on a .Language, a .Language compared with a
// language's name, or a constant that spells one (the name has one
// spelling: the table's).
func languageSwitches(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	isName := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return false
		}
		_, known := LookupLanguage(s)
		return known
	}
	isLanguage := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Language"
	}
	var found []string
	at := func(n ast.Node, what string) {
		found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			if n.Tag != nil && isLanguage(n.Tag) {
				at(n, "a switch on a pod's language")
			}
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) &&
				(isLanguage(n.X) && isName(n.Y) || isLanguage(n.Y) && isName(n.X)) {
				at(n, "a pod's language compared with a language's name")
			}
		case *ast.GenDecl:
			if n.Tok != token.CONST {
				return true
			}
			for _, spec := range n.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if isName(v) {
						at(v, "a constant that spells a language's name")
					}
				}
			}
		}
		return true
	})
	return found, nil
}

// Issue 32: a language is one entry of the table, one file; no code outside
// it switches on a pod's language, and the language's name has one
// spelling. The check walks every non-test Go file of the module.
func TestOnlyTheLanguageTableSwitchesOnLanguage(t *testing.T) {
	root := testenv.ModuleRoot
	var found []string
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || tableFile(rel) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		more, err := languageSwitches(rel, src)
		found = append(found, more...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("checked %d Go files under %s; the module has hundreds", files, root)
	}
	for _, f := range found {
		t.Errorf("%s outside the table of languages (internal/compile/languages.go, lang_*.go): ask the table instead", f)
	}
}

// The check finds what the table replaced: the compile job's switch, the
// fit report's "go" literals and project's constants.
func TestLanguageSwitchesFindsTheOldForms(t *testing.T) {
	old := `package x
const Go = "go"
func f(job Job, p Pod) {
	switch job.Language {
	case "c":
	}
	if p.Language == "go" {
	}
	if "rust" != p.Language {
	}
	if p.Language == l.Name || p.Language != "" {
	}
}`
	found, err := languageSwitches("old.go", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"old.go:2:", "old.go:4:", "old.go:7:", "old.go:9:"} {
		if !slices.ContainsFunc(found, func(f string) bool { return strings.HasPrefix(f, want) }) {
			t.Errorf("no finding at %s; found %q", want, found)
		}
	}
	if len(found) != 4 {
		t.Errorf("found %d, want 4 (a comparison with the table's own Name, or with \"\", is none): %q", len(found), found)
	}
}

// Every language of the table is whole: it compiles and fingerprints, says
// what its source is, and what to install when its toolchain is missing
// (prebuilt modules need none).
func TestEveryLanguageIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Languages {
		if l.Name == "" || l.Title == "" || l.Source == "" || l.compile == nil || l.fingerprint == nil || l.Fit.ReleaseShare <= 0 {
			t.Errorf("language %q: an entry needs Name, Title, Source, compile, fingerprint and Fit.ReleaseShare", l.Name)
		}
		if l.Install == "" && l.SourceExt == "" {
			t.Errorf("language %q: no Install, what a missing toolchain says", l.Name)
		}
		if seen[l.Name] {
			t.Errorf("language %q twice", l.Name)
		}
		seen[l.Name] = true
	}
	if got, want := SmallLanguages(), "C, Rust or AssemblyScript"; got != want {
		t.Errorf("SmallLanguages() = %q, want %q", got, want)
	}
}
