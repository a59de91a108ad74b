package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// wasmReader is the one package that reads and writes the WebAssembly
// binary format (docs/design.md, "The parts").
const wasmReader = "abi/wasmbin"

// One package parses WebAssembly (issue 35; docs/design.md, "The parts"):
// outside abi/wasmbin, no file, tests included, reads or writes LEB128 by
// hand (encoding/binary's varints are LEB128; a mask of 0x7f or a shift
// by 7 bits is a hand-written LEB128 loop), and no product code spells the
// binary's magic to recognise a module. The tests may write it as data.
func TestOnePackageParsesWebAssembly(t *testing.T) {
	fset := token.NewFileSet()
	found := 0
	for _, p := range packages(t) {
		if p.ImportPath == wasmReader {
			found++
			continue
		}
		var files []string
		files = append(files, p.GoFiles...)
		files = append(files, p.TestGoFiles...)
		files = append(files, p.XTestGoFiles...)
		for _, name := range files {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range wasmParsing(f, strings.HasSuffix(name, "_test.go")) {
				t.Errorf("%s: %s: WebAssembly is read and written by %s only", fset.Position(h.at), h.why, wasmReader)
			}
		}
	}
	if found != 1 {
		t.Fatalf("go list does not list %s", wasmReader)
	}
}

// handWritten is a place that reads or writes the binary format by hand,
// and why it counts as such.
type handWritten struct {
	at  token.Pos
	why string
}

// wasmParsing lists the places of f that read or write the binary format
// by hand: encoding/binary's varints, masks of 0x7f and shifts by 7 bits
// (LEB128 loops), and (in a file that is not a test) the magic.
func wasmParsing(f *ast.File, test bool) []handWritten {
	binaryName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"encoding/binary"` {
			binaryName = "binary"
			if imp.Name != nil {
				binaryName = imp.Name.Name
			}
		}
	}
	var found []handWritten
	leb := func(n ast.Node, op token.Token, operands ...ast.Expr) {
		for _, e := range operands {
			switch {
			case op == token.AND && isInt(e, 0x7f):
				found = append(found, handWritten{n.Pos(), "a mask of 0x7f reads or writes LEB128"})
			case (op == token.SHR || op == token.SHL) && e == operands[len(operands)-1] && isInt(e, 7):
				found = append(found, handWritten{n.Pos(), "a shift by 7 bits reads or writes LEB128"})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && binaryName != "" && x.Name == binaryName && strings.Contains(strings.ToLower(n.Sel.Name), "varint") {
				found = append(found, handWritten{n.Pos(), "encoding/binary's varints are LEB128"})
			}
		case *ast.BinaryExpr:
			leb(n, n.Op, n.X, n.Y)
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				op := map[token.Token]token.Token{token.AND_ASSIGN: token.AND, token.SHR_ASSIGN: token.SHR, token.SHL_ASSIGN: token.SHL}[n.Tok]
				leb(n, op, n.Rhs[0])
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && !test && strings.Contains(s, "\x00asm") {
				found = append(found, handWritten{n.Pos(), `the magic "\0asm" recognises a module`})
			}
		}
		return true
	})
	return found
}

func isInt(e ast.Expr, v int64) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return false
	}
	n, err := strconv.ParseInt(lit.Value, 0, 64)
	return err == nil && n == v
}
